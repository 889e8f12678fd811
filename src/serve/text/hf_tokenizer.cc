// A Hugging Face tokenizer.json tokenizer (serve/text/hf_tokenizer.h).
//
// Encode, steps (as the library's Tokenizer::encode):
//   1. Cut the text at the added tokens matched on it as it is (the non-normalized ones),
//      leftmost-longest, then with their single_word, lstrip and rstrip rules.
//   2. Normalize every other part, and cut it at the normalized added tokens the same way.
//   3. Pre-tokenize the parts left into pieces; the BPE model gives each piece's ids.
//   4. With special tokens, the post-processor's single-sequence template around them.
// Decode: each id's token (an added token's content), special ones left out when asked, then
// the decoders (without any, the tokens joined by spaces).
#include "pipesplit/serve/text/hf_tokenizer.h"

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/runtime/tensor/value.h"
#include "src/serve/text/hf_bpe.h"
#include "src/serve/text/hf_components.h"

namespace pipesplit::serve {
namespace {

using Json = nlohmann::json;
using text::CodePoints;

bool IsWhitespace(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F ||
         c == 0x3000;
}

struct AddedToken {
  int32_t id = 0;
  std::string content;
  std::string pattern;  // what is matched: the content, normalized for a normalized token
  bool single_word = false;
  bool lstrip = false;
  bool rstrip = false;
  bool normalized = true;
  bool special = false;
};

// A part of the text: an added token's id, or text still to tokenize (id -1).
struct Part {
  std::string text;
  int32_t id = -1;
  bool first = false;  // it starts the input
};

}  // namespace

struct HfTokenizer::Impl {
  std::string name;
  text::Bpe model;
  std::unique_ptr<text::Normalizer> normalizer;
  std::unique_ptr<text::PreTokenizer> pre_tokenizer;
  std::unique_ptr<text::Decoder> decoder;
  std::vector<AddedToken> added;  // special ones first, as the library orders its tries
  std::unordered_map<int32_t, size_t> added_by_id;
  std::unordered_map<std::string, int32_t> added_by_content;
  std::vector<int32_t> template_before, template_after;  // around the sequence
  std::unique_ptr<text::Regex> starts_with_word, ends_with_word;
  bool byte_level = false;  // the decoder maps byte-level characters back to bytes

  // Cuts `part` at the added tokens whose `normalized` flag is `normalized`.
  void CutAtAdded(const Part& part, bool normalized, std::vector<Part>& out) const;
  void Load(const Json& j);
};

void HfTokenizer::Impl::CutAtAdded(const Part& part, bool normalized,
                                   std::vector<Part>& out) const {
  const std::string& s = part.text;
  size_t offset = 0;  // the end of what is cut so far
  size_t search = 0;  // where the next match is looked for (matches never overlap)
  while (search < s.size()) {
    // The leftmost match, the longest there.
    size_t best_at = std::string::npos;
    const AddedToken* best = nullptr;
    for (size_t at = search; at < s.size() && best == nullptr; ++at) {
      for (const AddedToken& t : added) {
        if (t.normalized != normalized || t.pattern.empty()) continue;
        if (s.compare(at, t.pattern.size(), t.pattern) == 0 &&
            (best == nullptr || t.pattern.size() > best->pattern.size())) {
          best = &t;
          best_at = at;
        }
      }
    }
    if (best == nullptr) break;
    size_t start = best_at;
    size_t stop = best_at + best->pattern.size();
    search = stop;
    if (best->single_word) {
      const bool free_left = start == 0 || !ends_with_word->Search(s.substr(0, start));
      const bool free_right = stop == s.size() || !starts_with_word->Search(s.substr(stop));
      if (!free_left || !free_right) continue;
    }
    if (best->lstrip) {
      std::vector<char32_t> before = CodePoints(std::string_view(s).substr(0, start));
      size_t new_start = start;
      for (auto it = before.rbegin(); it != before.rend() && IsWhitespace(*it); ++it) {
        std::string c;
        text::AppendUtf8(*it, c);
        new_start -= c.size();
      }
      start = std::max(new_start, offset);
    }
    if (best->rstrip) {
      for (char32_t c : CodePoints(std::string_view(s).substr(stop))) {
        if (!IsWhitespace(c)) break;
        std::string bytes;
        text::AppendUtf8(c, bytes);
        stop += bytes.size();
      }
    }
    if (offset < start)
      out.push_back({s.substr(offset, start - offset), -1, part.first && offset == 0});
    out.push_back({s.substr(start, stop - start), best->id, false});
    offset = stop;
  }
  if (offset < s.size() || s.empty()) {
    out.push_back({s.substr(offset), -1, part.first && offset == 0});
  }
}

void HfTokenizer::Impl::Load(const Json& j) {
  if (!j.is_object()) throw runtime::RuntimeError("the file is not a JSON object");
  model = text::Bpe::FromJson(j.at("model"));
  normalizer = text::MakeNormalizer(j.value("normalizer", Json()));
  pre_tokenizer = text::MakePreTokenizer(j.value("pre_tokenizer", Json()));
  decoder = text::MakeDecoder(j.value("decoder", Json()));
  byte_level = j.value("decoder", Json()).dump().find("\"ByteLevel\"") != std::string::npos;
  std::vector<AddedToken> special, plain;
  for (const Json& t : j.value("added_tokens", Json::array())) {
    AddedToken a;
    a.id = t.at("id").get<int32_t>();
    a.content = t.at("content").get<std::string>();
    a.single_word = t.value("single_word", false);
    a.lstrip = t.value("lstrip", false);
    a.rstrip = t.value("rstrip", false);
    a.special = t.value("special", false);
    a.normalized = t.value("normalized", !a.special);
    a.pattern = a.normalized && normalizer ? normalizer->Normalize(a.content) : a.content;
    added_by_id[a.id] = 0;
    added_by_content[a.content] = a.id;
    (a.special ? special : plain).push_back(std::move(a));
  }
  added = std::move(special);
  for (AddedToken& a : plain) added.push_back(std::move(a));
  for (size_t i = 0; i < added.size(); ++i) added_by_id[added[i].id] = i;
  starts_with_word = std::make_unique<text::Regex>("^\\w");
  ends_with_word = std::make_unique<text::Regex>("\\w$");
  const Json post = j.value("post_processor", Json());
  if (post.is_null()) return;
  const std::string type = post.at("type").get<std::string>();
  if (type == "ByteLevel") return;  // it changes offsets only
  if (type != "TemplateProcessing") {
    throw runtime::RuntimeError(fmt::format(
        "the post-processor '{}' is not supported (TemplateProcessing, ByteLevel)", type));
  }
  bool after = false;
  for (const Json& item : post.at("single")) {
    if (item.contains("Sequence")) {
      after = true;
      continue;
    }
    const std::string id = item.at("SpecialToken").at("id").get<std::string>();
    const Json& special_tokens = post.at("special_tokens");
    if (!special_tokens.contains(id)) {
      throw runtime::RuntimeError(
          fmt::format("the post-processor's template names '{}', which it does not define", id));
    }
    for (const Json& v : special_tokens.at(id).at("ids")) {
      (after ? template_after : template_before).push_back(v.get<int32_t>());
    }
  }
}

HfTokenizer HfTokenizer::FromJson(std::string_view json, const std::string& name) {
  auto impl = std::make_unique<Impl>();
  impl->name = name;
  try {
    impl->Load(Json::parse(json));
  } catch (const Json::exception& e) {
    throw runtime::RuntimeError(fmt::format("{}: not a tokenizer.json: {}", name, e.what()));
  } catch (const runtime::RuntimeError& e) {
    throw runtime::RuntimeError(fmt::format("{}: {}", name, e.what()));
  }
  return HfTokenizer(std::move(impl));
}

HfTokenizer HfTokenizer::FromFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw runtime::RuntimeError(fmt::format("{}: cannot read the file", path));
  std::ostringstream text;
  text << in.rdbuf();
  return FromJson(text.str(), path);
}

HfTokenizer::HfTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HfTokenizer::HfTokenizer(HfTokenizer&&) noexcept = default;
HfTokenizer& HfTokenizer::operator=(HfTokenizer&&) noexcept = default;
HfTokenizer::~HfTokenizer() = default;

std::vector<int32_t> HfTokenizer::Encode(std::string_view input, bool add_special_tokens) const {
  const Impl& t = *impl_;
  std::vector<Part> raw;  // step 1
  t.CutAtAdded({std::string(input), -1, true}, /*normalized=*/false, raw);
  std::vector<Part> parts;  // step 2
  for (Part& p : raw) {
    if (p.id >= 0) {
      parts.push_back(std::move(p));
      continue;
    }
    if (t.normalizer) p.text = t.normalizer->Normalize(std::move(p.text));
    t.CutAtAdded(p, /*normalized=*/true, parts);
  }
  std::vector<int32_t> ids = add_special_tokens ? t.template_before : std::vector<int32_t>{};
  for (Part& p : parts) {  // step 3
    if (p.id >= 0) {
      ids.push_back(p.id);
      continue;
    }
    if (p.text.empty()) continue;
    std::vector<text::Piece> pieces = {{std::move(p.text), p.first}};
    if (t.pre_tokenizer) t.pre_tokenizer->PreTokenize(pieces);
    for (const text::Piece& piece : pieces) {
      if (!piece.text.empty()) t.model.Tokenize(piece.text, ids);
    }
  }
  if (add_special_tokens) ids.insert(ids.end(), t.template_after.begin(), t.template_after.end());
  return ids;
}

std::string HfTokenizer::Decode(std::span<const int32_t> ids, bool skip_special) const {
  const Impl& t = *impl_;
  std::vector<std::string> tokens;
  for (int32_t id : ids) {
    if (auto it = t.added_by_id.find(id); it != t.added_by_id.end()) {
      const AddedToken& a = t.added[it->second];
      if (!(skip_special && a.special)) tokens.push_back(a.content);
    } else if (const std::string* token = t.model.IdToToken(id)) {
      tokens.push_back(*token);
    }
  }
  if (!t.decoder) {
    std::string joined;
    for (size_t i = 0; i < tokens.size(); ++i) joined += (i ? " " : "") + tokens[i];
    return joined;
  }
  std::string text;
  for (const std::string& piece : t.decoder->DecodeChain(std::move(tokens))) text += piece;
  return text;
}

int64_t HfTokenizer::vocab_size() const {
  const Impl& t = *impl_;
  int64_t n = t.model.size();
  for (const AddedToken& a : t.added) n += t.model.IdToToken(a.id) == nullptr;
  return n;
}

std::optional<int32_t> HfTokenizer::TokenToId(std::string_view token) const {
  const Impl& t = *impl_;
  if (auto it = t.added_by_content.find(std::string(token)); it != t.added_by_content.end()) {
    return it->second;
  }
  return t.model.TokenToId(token);
}

std::optional<std::string> HfTokenizer::IdToToken(int32_t id) const {
  const Impl& t = *impl_;
  if (auto it = t.added_by_id.find(id); it != t.added_by_id.end()) {
    return t.added[it->second].content;
  }
  if (const std::string* token = t.model.IdToToken(id)) return *token;
  return std::nullopt;
}

std::string HfTokenizer::TokenBytes(int32_t id) const {
  const Impl& t = *impl_;
  if (auto it = t.added_by_id.find(id); it != t.added_by_id.end()) {
    return t.added[it->second].content;
  }
  const std::string* token = t.model.IdToToken(id);
  if (token == nullptr) return "";
  if (token->size() == 6 && token->starts_with("<0x") && token->ends_with(">") &&
      std::isxdigit(static_cast<unsigned char>((*token)[3])) &&
      std::isxdigit(static_cast<unsigned char>((*token)[4]))) {
    return std::string(1, static_cast<char>(std::stoi(token->substr(3, 2), nullptr, 16)));
  }
  std::string bytes;
  if (t.byte_level && text::ByteLevelBytes(*token, &bytes)) return bytes;
  bytes.clear();
  constexpr std::string_view kSpace = "\xE2\x96\x81";  // U+2581
  for (size_t i = 0; i < token->size();) {
    if (std::string_view(*token).substr(i, 3) == kSpace) {
      bytes += ' ';
      i += 3;
    } else {
      bytes += (*token)[i++];
    }
  }
  return bytes;
}

bool HfTokenizer::IsSpecial(int32_t id) const {
  auto it = impl_->added_by_id.find(id);
  return it != impl_->added_by_id.end() && impl_->added[it->second].special;
}

}  // namespace pipesplit::serve
