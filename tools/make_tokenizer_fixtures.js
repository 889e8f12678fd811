// Writes the tokenizer fixtures of tests/serving/text/fixtures/ from Hugging Face's own
// tokenizers library (npm tokenizers@0.23.2, its Rust core): for every tokenizer.json of the
// shared corpus, and for variants of them made here for what the corpus lacks, the ids of 200+
// texts with and without special tokens and the decoded text of those ids (special tokens kept
// and skipped). The tests read the fixtures, never the package.
//
// Usage: npm install tokenizers@0.23.2 && node tools/make_tokenizer_fixtures.js CORPUS OUT_DIR
// (CORPUS: ../shared/corpus/tokenizers).
'use strict';
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');
const { Tokenizer } = require('tokenizers');

const [corpus, out] = process.argv.slice(2);
if (!corpus || !out) {
  console.error('usage: node make_tokenizer_fixtures.js CORPUS OUT_DIR');
  process.exit(2);
}

const { setLlama3PreTokenizer } = require('./tokenizer_variants');

// The variants, made from a corpus file by the same edits the tests make (tests/serving/tokenizer_variants.h).
const VARIANTS = {
  'llama3-pretokenizer': {
    base: 'deepseek-coder-6.7b-instruct',
    edit: (j) => {
      setLlama3PreTokenizer(j);
    },
  },
  'ignore-merges': {
    base: 'deepseek-coder-6.7b-instruct',
    // DeepSeek's vocabulary is consistent with its merges (ignore_merges changes no id), so
    // the variant keeps the first 10000 merges only: a word in the vocabulary that the merges
    // left can no longer build comes out whole with ignore_merges, in pieces without it.
    edit: (j) => {
      j.model.ignore_merges = true;
      j.model.merges = j.model.merges.slice(0, 10000);
    },
  },
};

// A seeded generator (xorshift32), so the texts are the same on every run.
let seed = 20261207;
function rand(n) {
  seed ^= seed << 13;
  seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  seed >>>= 0;
  return seed % n;
}

const BASE = [
  '', ' ', '  ', '   ', '\t', '\n', '\n\n', ' \n', '\r\n', 'a', 'A', '1', '12', '123', '1234',
  '12345678901', 'Hello world', ' Hello world', 'Hello World!', 'hello  world', 'Hello\tworld',
  'Hello\nworld', "I'm here, you're there; we've gone. They'll see it'd be OK.", "DON'T SHOUT",
  'The quick brown fox jumps over the lazy dog.', '3.14159 is pi; 2,718 is e; 1e-5 small',
  'Price: $1,234.56 (approx.)', '2026-12-07T21:32:04Z', 'x = y + 42 * (z - 7)',
  'def f(x):\n    return x ** 2\n', 'int main() { return 0; }', 'for (i = 0; i < n; ++i) {}',
  '    indented four', '\t\ttabbed twice', 'trailing spaces   ', '   leading spaces',
  'a\u00a0b (no-break space)', 'caf\u00e9 na\u00efve r\u00e9sum\u00e9', 'Stra\u00dfe \u00fcber \u00f6l',
  '\u00c5ngstr\u00f6m \u00c6sir \u00d8resund', '\u041f\u0440\u0438\u0432\u0435\u0442, \u043c\u0438\u0440!',
  '\u0393\u03b5\u03b9\u03ac \u03c3\u03bf\u03c5 \u039a\u03cc\u03c3\u03bc\u03b5',
  '\u3053\u3093\u306b\u3061\u306f\u4e16\u754c', '\u4f60\u597d\uff0c\u4e16\u754c\uff01', '\uc548\ub155\ud558\uc138\uc694',
  '\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645', '\u05e9\u05dc\u05d5\u05dd \u05e2\u05d5\u05dc\u05dd',
  '\u0928\u092e\u0938\u094d\u0924\u0947 \u0926\u0941\u0928\u093f\u092f\u093e', '\u0e2a\u0e27\u0e31\u0e2a\u0e14\u0e35',
  '\ud83e\udd99 llama', '\ud83d\ude00\ud83d\ude03\ud83d\ude04', '\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 family',
  '\ud83c\uddfa\ud83c\uddf8 flag', '\u2764\ufe0f heart', 'e\u0301 combining', '\u212b \u2126 \u00b5',
  '\u2581 lower one eighth block', '<s> not special here', '</s>', '<unk>', '<|endoftext|>',
  '<|user|>hi<|end|>', '<|assistant|>', '\u00f5 \u00fc \u00f6', 'Ã©', '\u0000 nul', '\u007f del',
  '\u200b zero width', '\ufeff bom', '0x1F 0b1010 0o777', 'snake_case camelCase PascalCase',
  'https://example.com/path?q=1&r=2#frag', 'user@example.org', '#include <stdio.h>',
  '// comment\n/* block */', '"quoted" \'single\' `back`', '!!!???...,,,;;;:::', '---===+++***',
  '...', '\u2026 ellipsis', '\u201csmart quotes\u201d \u2018too\u2019', '\u2014 em dash \u2013 en dash',
  '((()))[[[]]]{{{}}}', '<<>> >> <<', 'a' .repeat(64), 'ab'.repeat(40), ' '.repeat(17),
  '\t'.repeat(9), '\n'.repeat(5), ' \t \t ', '1 2 3 4 5 6 7 8 9 10', '000000000000',
  '1,000,000', '99%', '-42', '+7', '3/4', 'a1b2c3d4', 'ABC123def456', 'x'.repeat(7) + '1'.repeat(7),
  'SELECT * FROM t WHERE a = 1;', 'let v: Vec<u8> = vec![1, 2, 3];', '<div class="x">y</div>',
  '{"key": [1, 2.5, null, true]}', 'SGVsbG8gd29ybGQ=', 'C:\\Windows\\System32', '~/.bashrc',
];

const FRAGMENTS = [
  'the', ' of', ' and', 'ing', ' model', ' pipeline', ' token', 'izer', '42', '2026', '3.5',
  '  ', '   ', '\t', '\n', '\r\n', ',', '.', '!', '?', "'s", "'ll", ' \u00e9t\u00e9', ' \u00fc',
  '\u4e16\u754c', '\u3053\u3093', ' \u041c\u0438\u0440', '\ud83e\udd99', '\ud83d\ude00', '\u2581', '{', '}',
  '()', ' ==', ' =>', '_', '-', ' 1234567', ' x', ' Y', 'Z', '\u00a0', ' \u0645\u0631', '\u0301',
];

function makeTexts(specials) {
  seed = 20261207;  // the same texts for every file
  const texts = BASE.slice();
  while (texts.length < 200) {
    const n = 1 + rand(12);
    let t = '';
    for (let i = 0; i < n; ++i) t += FRAGMENTS[rand(FRAGMENTS.length)];
    texts.push(t);
  }
  // Added and special tokens inside text: alone, between words, next to spaces.
  for (const s of specials.slice(0, 12)) {
    texts.push(s, 'a' + s + 'b', ' ' + s + ' x', 'Hello ' + s + '\n' + s + ' world');
  }
  return texts;
}

async function fixture(name, json) {
  const text = JSON.stringify(json);
  const tok = Tokenizer.fromString(text);
  const specials = (json.added_tokens || []).map((t) => t.content);
  const cases = [];
  for (const t of makeTexts(specials)) {
    const withSpecial = (await tok.encode(t, null, { addSpecialTokens: true })).getIds();
    const plain = (await tok.encode(t, null, { addSpecialTokens: false })).getIds();
    cases.push({
      text: t,
      ids: plain,
      ids_with_special: withSpecial,
      decoded: await tok.decode(withSpecial, false),
      decoded_skip_special: await tok.decode(withSpecial, true),
    });
  }
  return { name, cases };
}

(async () => {
  fs.mkdirSync(out, { recursive: true });
  const names = fs.readdirSync(corpus).filter((d) => fs.existsSync(path.join(corpus, d, 'tokenizer.json')));
  const jobs = names.map((n) => [n, null]);
  for (const [v, spec] of Object.entries(VARIANTS)) jobs.push([v, spec]);
  for (const [name, spec] of jobs) {
    const file = path.join(corpus, spec ? spec.base : name, 'tokenizer.json');
    const bytes = fs.readFileSync(file);
    const json = JSON.parse(bytes.toString('utf8'));
    if (spec) spec.edit(json);
    const f = await fixture(name, json);
    f.source = (spec ? spec.base : name) + '/tokenizer.json';
    f.source_sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
    f.library = 'tokenizers@0.23.2 (npm)';
    fs.writeFileSync(path.join(out, name + '.json'), JSON.stringify(f, null, 0) + '\n');
    console.log(name + ': ' + f.cases.length + ' texts');
  }
})();
