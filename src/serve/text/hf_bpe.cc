// The BPE model of a tokenizer.json (hf_bpe.h).
#include "src/serve/text/hf_bpe.h"

#include <fmt/format.h>

#include <limits>

#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::serve::text {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Fail(const std::string& message) { throw runtime::RuntimeError(message); }

std::string OptionalString(const Json& j, const char* field) {
  auto it = j.find(field);
  return it == j.end() || it->is_null() ? std::string() : it->get<std::string>();
}

// The byte length of the UTF-8 character that starts with `lead`.
size_t CharLength(unsigned char lead) {
  return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

}  // namespace

Bpe Bpe::FromJson(const Json& j) {
  if (!j.is_object()) Fail("the model must be an object");
  const std::string type = j.value("type", std::string("BPE"));
  if (type != "BPE") Fail(fmt::format("the model '{}' is not supported (BPE)", type));
  Bpe bpe;
  for (const auto& [token, id] : j.at("vocab").items()) {
    const int32_t i = id.get<int32_t>();
    bpe.vocab_[token] = i;
    bpe.tokens_[i] = token;
  }
  if (auto it = j.find("unk_token"); it != j.end() && it->is_string()) {
    bpe.unk_ = it->get<std::string>();
  }
  bpe.prefix_ = OptionalString(j, "continuing_subword_prefix");
  bpe.suffix_ = OptionalString(j, "end_of_word_suffix");
  bpe.fuse_unk_ = j.value("fuse_unk", false);
  bpe.byte_fallback_ = j.value("byte_fallback", false);
  bpe.ignore_merges_ = j.value("ignore_merges", false);
  int32_t rank = 0;
  for (const Json& m : j.at("merges")) {
    std::string a, b;
    if (m.is_string()) {
      const std::string s = m.get<std::string>();
      const size_t space = s.find(' ');
      if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
        Fail(fmt::format("merge {} ('{}') is not two tokens", rank, s));
      }
      a = s.substr(0, space);
      b = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2) {
      a = m[0].get<std::string>();
      b = m[1].get<std::string>();
    } else {
      Fail(fmt::format("merge {} is neither \"a b\" nor [a, b]", rank));
    }
    auto ia = bpe.vocab_.find(a), ib = bpe.vocab_.find(b);
    const std::string merged =
        a + (!bpe.prefix_.empty() && b.starts_with(bpe.prefix_) ? b.substr(bpe.prefix_.size()) : b);
    auto im = bpe.vocab_.find(merged);
    if (ia == bpe.vocab_.end() || ib == bpe.vocab_.end() || im == bpe.vocab_.end()) {
      Fail(fmt::format("merge {} ('{} {}') names a token not in the vocabulary", rank, a, b));
    }
    bpe.merges_.emplace(Key(ia->second, ib->second), Merge{rank, im->second});
    ++rank;
  }
  return bpe;
}

void Bpe::Tokenize(std::string_view piece, std::vector<int32_t>& ids) const {
  if (ignore_merges_) {
    if (auto it = vocab_.find(std::string(piece)); it != vocab_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  // The symbols: the characters' tokens.
  std::vector<int32_t> symbols;
  std::optional<int32_t> unk_id;
  bool pending_unk = false;
  auto flush_unk = [&] {
    if (pending_unk) symbols.push_back(*unk_id);
    pending_unk = false;
  };
  for (size_t i = 0; i < piece.size();) {
    const size_t n = std::min(CharLength(static_cast<unsigned char>(piece[i])), piece.size() - i);
    std::string s(piece.substr(i, n));
    const bool first = i == 0;
    i += n;
    if (!first) s.insert(0, prefix_);
    if (i == piece.size()) s += suffix_;
    if (auto it = vocab_.find(s); it != vocab_.end()) {
      flush_unk();
      symbols.push_back(it->second);
      continue;
    }
    if (byte_fallback_) {
      std::vector<int32_t> bytes;
      for (unsigned char b : s) {
        auto it = vocab_.find(fmt::format("<0x{:02X}>", b));
        if (it == vocab_.end()) break;
        bytes.push_back(it->second);
      }
      if (bytes.size() == s.size()) {
        symbols.insert(symbols.end(), bytes.begin(), bytes.end());
        continue;
      }
    }
    if (!unk_) continue;  // no unknown token: the character is dropped, as the library does
    auto it = vocab_.find(*unk_);
    if (it == vocab_.end()) {
      throw runtime::RuntimeError(
          fmt::format("the unknown token '{}' is not in the vocabulary", *unk_));
    }
    if (pending_unk && !fuse_unk_) flush_unk();
    unk_id = it->second;
    pending_unk = true;
  }
  flush_unk();
  // Merges: the pair of lowest rank, leftmost among equal ranks, until none is left.
  for (;;) {
    size_t best = std::numeric_limits<size_t>::max();
    Merge best_merge{std::numeric_limits<int32_t>::max(), -1};
    for (size_t k = 0; k + 1 < symbols.size(); ++k) {
      auto it = merges_.find(Key(symbols[k], symbols[k + 1]));
      if (it != merges_.end() && it->second.rank < best_merge.rank) {
        best_merge = it->second;
        best = k;
      }
    }
    if (best_merge.id < 0) break;
    symbols[best] = best_merge.id;
    symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  ids.insert(ids.end(), symbols.begin(), symbols.end());
}

std::optional<int32_t> Bpe::TokenToId(std::string_view token) const {
  auto it = vocab_.find(std::string(token));
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

const std::string* Bpe::IdToToken(int32_t id) const {
  auto it = tokens_.find(id);
  return it == tokens_.end() ? nullptr : &it->second;
}

}  // namespace pipesplit::serve::text
