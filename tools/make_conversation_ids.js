// Adds to tests/serving/conversation_fixtures/prompts.json (tools/make_conversation_fixtures.py)
// the token ids MLC's chat endpoint sends to the model for each prompt, where a tokenizer of the
// shared corpus (or a variant of one, made by the same edit as the test) has the template's
// special tokens: the template's system_prefix_token_ids, then the prompt text encoded by Hugging
// Face's own tokenizers library (npm tokenizers@0.23.2) without special tokens, as MLC's
// tokenizer encodes it. The tests read the fixture, never the package.
//
// Usage: npm install tokenizers@0.23.2 && node tools/make_conversation_ids.js CORPUS FIXTURE
// (CORPUS: ../shared/corpus/tokenizers).
'use strict';
const fs = require('fs');
const path = require('path');
const { Tokenizer } = require('tokenizers');

const [corpus, fixturePath] = process.argv.slice(2);
if (!corpus || !fixturePath) {
  console.error('usage: node make_conversation_ids.js CORPUS FIXTURE');
  process.exit(2);
}

const { setLlama3PreTokenizer } = require('./tokenizer_variants');

// The chat tokens of Llama 3 and ChatML, as special added tokens after DeepSeek's 32022 ids.
const CHAT_TOKENS = [
  '<|begin_of_text|>', '<|end_of_text|>', '<|start_header_id|>', '<|end_header_id|>',
  '<|eom_id|>', '<|eot_id|>', '<|im_start|>', '<|im_end|>', '<|endoftext|>',
];

// The tokenizers: a corpus folder, or a variant (its base and edit, as in the test).
const TOKENIZERS = {
  'phi-3-mini-4k-instruct': {},
  'phi-3-vision-128k-instruct': {},
  'phi-2': {},
  'llama3-chat': {
    base: 'deepseek-coder-6.7b-instruct',
    edit: (j) => {
      setLlama3PreTokenizer(j);
      for (const [i, content] of CHAT_TOKENS.entries()) {
        j.added_tokens.push({
          id: 32022 + i, content, single_word: false, lstrip: false, rstrip: false, normalized: false,
          special: true,
        });
      }
    },
  },
};

// Which tokenizer each template's ids are checked with.
const PAIRS = {
  'LM': 'phi-3-vision-128k-instruct',
  'llama-2': 'phi-3-vision-128k-instruct',
  'codellama_instruct': 'phi-3-vision-128k-instruct',
  'mistral_default': 'phi-3-vision-128k-instruct',
  'tinyllama_v1_0': 'phi-3-vision-128k-instruct',
  'phi-3': 'phi-3-mini-4k-instruct',
  'phi-2': 'phi-2',
  'gpt2': 'phi-2',
  'llama-3': 'llama3-chat',
  'llama-3_1': 'llama3-chat',
  'chatml': 'llama3-chat',
  'chatml_nosystem': 'llama3-chat',
  'qwen2': 'llama3-chat',
};

async function main() {
  const fixture = JSON.parse(fs.readFileSync(fixturePath, 'utf8'));
  const loaded = {};
  for (const [name, spec] of Object.entries(TOKENIZERS)) {
    const file = path.join(corpus, spec.base || name, 'tokenizer.json');
    const j = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (spec.edit) spec.edit(j);
    loaded[name] = Tokenizer.fromString(JSON.stringify(j));
  }
  for (const t of fixture.templates) {
    const name = PAIRS[t.name];
    if (!name) continue;
    t.tokenizer = name;
    t.ids = {};
    const prefix = t.json.system_prefix_token_ids || [];
    for (const [key, text] of Object.entries(t.prompts)) {
      const ids = (await loaded[name].encode(text, null, { addSpecialTokens: false })).getIds();
      t.ids[key] = prefix.concat(Array.from(ids));
    }
  }
  fs.writeFileSync(fixturePath, JSON.stringify(fixture, null, 1) + '\n');
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
