// The BPE model of a tokenizer.json (serve/text/hf_tokenizer.h), as the tokenizers library runs
// it: a piece's characters (each with the continuing-subword prefix after the first and the
// end-of-word suffix on the last) looked up in the vocabulary, a character not in it as its
// bytes' <0xXX> tokens (byte_fallback) or the unknown token (consecutive ones fused with
// fuse_unk), then the merge of lowest rank applied, leftmost first, until none applies. With
// ignore_merges, a piece found whole in the vocabulary is that token.
#ifndef PIPESPLIT_SRC_SERVE_TEXT_HF_BPE_H_
#define PIPESPLIT_SRC_SERVE_TEXT_HF_BPE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace pipesplit::serve::text {

class Bpe {
 public:
  // From tokenizer.json's "model" (type BPE); RuntimeError for another model or a bad field.
  static Bpe FromJson(const nlohmann::json& j);

  // Appends the ids of `piece` (non-empty) to `ids`.
  void Tokenize(std::string_view piece, std::vector<int32_t>& ids) const;
  int64_t size() const { return static_cast<int64_t>(vocab_.size()); }
  std::optional<int32_t> TokenToId(std::string_view token) const;
  // Null for an id not in the vocabulary.
  const std::string* IdToToken(int32_t id) const;

 private:
  struct Merge {
    int32_t rank;
    int32_t id;  // the merged token
  };
  static uint64_t Key(int32_t a, int32_t b) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(a)) << 32) | static_cast<uint32_t>(b);
  }

  std::unordered_map<std::string, int32_t> vocab_;
  std::unordered_map<int32_t, std::string> tokens_;
  std::unordered_map<uint64_t, Merge> merges_;
  std::optional<std::string> unk_;
  std::string prefix_;  // continuing_subword_prefix
  std::string suffix_;  // end_of_word_suffix
  bool fuse_unk_ = false;
  bool byte_fallback_ = false;
  bool ignore_merges_ = false;
};

}  // namespace pipesplit::serve::text

#endif  // PIPESPLIT_SRC_SERVE_TEXT_HF_BPE_H_
