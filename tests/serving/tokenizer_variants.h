// Edits the tests make to corpus tokenizer.json files for what the corpus lacks, the same edits
// as tools/tokenizer_variants.js makes before asking Hugging Face's library for fixtures.
#ifndef PIPESPLIT_TESTS_SERVING_TOKENIZER_VARIANTS_H_
#define PIPESPLIT_TESTS_SERVING_TOKENIZER_VARIANTS_H_

namespace pipesplit::serve::testing_tokenizers {

// Llama 3's pre-tokenizer (its tokenizer.json): one Split regex, then bytes without a regex.
template <typename Json>
void SetLlama3PreTokenizer(Json& j) {
  j["pre_tokenizer"] = {
      {"type", "Sequence"},
      {"pretokenizers",
       {{{"type", "Split"},
         {"pattern",
          {{"Regex",
            "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| "
            "?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"}}},
         {"behavior", "Isolated"},
         {"invert", false}},
        {{"type", "ByteLevel"},
         {"add_prefix_space", false},
         {"trim_offsets", true},
         {"use_regex", false}}}}};
}

}  // namespace pipesplit::serve::testing_tokenizers

#endif  // PIPESPLIT_TESTS_SERVING_TOKENIZER_VARIANTS_H_
