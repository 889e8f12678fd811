// Edits the fixture scripts make to corpus tokenizer.json files for what the corpus lacks, the
// same edits as tests/serving/tokenizer_variants.h makes in the tests.
'use strict';

// Llama 3's pre-tokenizer (its tokenizer.json): one Split regex, then bytes without a regex.
const LLAMA3_SPLIT =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+" +
  "[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

function setLlama3PreTokenizer(j) {
  j.pre_tokenizer = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: LLAMA3_SPLIT }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: false },
    ],
  };
}

module.exports = { setLlama3PreTokenizer };
