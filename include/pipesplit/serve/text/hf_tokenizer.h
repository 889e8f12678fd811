// A Hugging Face `tokenizer.json` tokenizer: the BPE model with its normalizers, pre-tokenizers,
// added tokens, post-processor and decoders, as the `tokenizers` library (0.23) runs them.
//
// What it reads:
//   model           BPE: vocab, merges (strings "a b" or pairs), unk_token, fuse_unk,
//                   byte_fallback, ignore_merges, continuing_subword_prefix, end_of_word_suffix
//   added_tokens    matched in the text before the model, leftmost-longest, with their
//                   single_word, lstrip, rstrip, normalized and special flags
//   normalizer      Sequence, Prepend, Replace (a string or regex pattern), or null
//   pre_tokenizer   Sequence, Split (regex or string; Isolated, Removed, MergedWithPrevious,
//                   MergedWithNext, Contiguous; invert), ByteLevel, Digits, Punctuation,
//                   Metaspace, or null
//   post_processor  TemplateProcessing (the single-sequence template), ByteLevel (no ids of
//                   its own), or null
//   decoder         Sequence, ByteLevel, Replace, ByteFallback, Fuse, Strip, Metaspace, or null
// Regexes run on PCRE2 with Unicode properties (the library uses Oniguruma). Anything else is an
// error naming the component, when the file is loaded.
#ifndef PIPESPLIT_SERVE_TEXT_HF_TOKENIZER_H_
#define PIPESPLIT_SERVE_TEXT_HF_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pipesplit::serve {

class HfTokenizer {
 public:
  // RuntimeError naming the file and what is wrong (malformed JSON, an unsupported component).
  static HfTokenizer FromFile(const std::string& path);
  // The same from the file's text; `name` names it in errors.
  static HfTokenizer FromJson(std::string_view json, const std::string& name);
  HfTokenizer(HfTokenizer&&) noexcept;
  HfTokenizer& operator=(HfTokenizer&&) noexcept;
  ~HfTokenizer();

  // The ids of `text`; with `add_special_tokens`, the post-processor's template around them.
  std::vector<int32_t> Encode(std::string_view text, bool add_special_tokens) const;
  // The text of `ids` through the decoder; special added tokens left out with `skip_special`.
  // Unknown ids are left out.
  std::string Decode(std::span<const int32_t> ids, bool skip_special) const;

  // The model's vocabulary and the added tokens.
  int64_t vocab_size() const;
  std::optional<int32_t> TokenToId(std::string_view token) const;
  // The token's string (an added token's content), or nullopt for an unknown id.
  std::optional<std::string> IdToToken(int32_t id) const;
  bool IsSpecial(int32_t id) const;
  // The bytes one token stands for in a text: an added token's content, a byte-fallback token
  // (<0xE2>) as its byte, a byte-level token's characters mapped back to bytes, U+2581 as a
  // space otherwise; "" for an unknown id.
  std::string TokenBytes(int32_t id) const;

  struct Impl;

 private:
  explicit HfTokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipesplit::serve

#endif  // PIPESPLIT_SERVE_TEXT_HF_TOKENIZER_H_
