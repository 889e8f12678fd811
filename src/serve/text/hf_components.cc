// The parts of a tokenizer.json pipeline (hf_components.h).
#include "src/serve/text/hf_components.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::serve::text {
namespace {

using Json = nlohmann::json;

[[noreturn]] void Fail(const std::string& message) { throw runtime::RuntimeError(message); }

const std::string& StringField(const Json& j, const char* field, const char* what) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_string()) {
    Fail(fmt::format("{} needs a string '{}'", what, field));
  }
  return it->get_ref<const std::string&>();
}

bool BoolField(const Json& j, const char* field, bool fallback) {
  auto it = j.find(field);
  return it == j.end() || it->is_null() ? fallback : it->get<bool>();
}

// The pattern of a Split or Replace: {"String": s} (literal) or {"Regex": r}.
std::string PatternOf(const Json& j, const char* what) {
  auto it = j.find("pattern");
  if (it == j.end() || !it->is_object()) Fail(fmt::format("{} needs a pattern", what));
  if (auto s = it->find("String"); s != it->end() && s->is_string()) {
    return EscapeRegex(s->get<std::string>());
  }
  if (auto r = it->find("Regex"); r != it->end() && r->is_string()) return r->get<std::string>();
  Fail(fmt::format("{}'s pattern must be {{\"String\": ...}} or {{\"Regex\": ...}}", what));
}

SplitBehavior BehaviorOf(const Json& j, SplitBehavior fallback) {
  auto it = j.find("behavior");
  if (it == j.end()) return fallback;
  const std::string b = it->get<std::string>();
  if (b == "Isolated") return SplitBehavior::kIsolated;
  if (b == "Removed") return SplitBehavior::kRemoved;
  if (b == "MergedWithPrevious") return SplitBehavior::kMergedWithPrevious;
  if (b == "MergedWithNext") return SplitBehavior::kMergedWithNext;
  if (b == "Contiguous") return SplitBehavior::kContiguous;
  Fail(fmt::format("unknown split behavior '{}'", b));
}

void ReplaceAll(std::string& s, std::string_view from, std::string_view to) {
  if (from.empty()) return;
  std::string out;
  size_t at = 0;
  for (size_t hit; (hit = s.find(from, at)) != std::string::npos; at = hit + from.size()) {
    out.append(s, at, hit - at);
    out.append(to);
  }
  out.append(s, at, std::string::npos);
  s = std::move(out);
}

// GPT-2's byte-to-character table: printable bytes stand for themselves, the others for
// U+0100 onwards.
const std::array<char32_t, 256>& ByteChars() {
  static const std::array<char32_t, 256> kTable = [] {
    std::array<char32_t, 256> t{};
    std::array<bool, 256> direct{};
    for (int b = 0; b < 256; ++b) {
      direct[b] = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
    }
    char32_t next = 256;
    for (int b = 0; b < 256; ++b) t[b] = direct[b] ? static_cast<char32_t>(b) : next++;
    return t;
  }();
  return kTable;
}

// --- Normalizers ---------------------------------------------------------------------------

class SequenceNormalizer : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> parts)
      : parts_(std::move(parts)) {}
  std::string Normalize(std::string s) const override {
    for (const auto& p : parts_) s = p->Normalize(std::move(s));
    return s;
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> parts_;
};

class PrependNormalizer : public Normalizer {
 public:
  explicit PrependNormalizer(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string Normalize(std::string s) const override { return s.empty() ? s : prefix_ + s; }

 private:
  std::string prefix_;
};

class ReplaceNormalizer : public Normalizer {
 public:
  ReplaceNormalizer(const std::string& pattern, std::string content)
      : regex_(pattern), content_(std::move(content)) {}
  std::string Normalize(std::string s) const override {
    std::string out;
    size_t at = 0;
    for (const auto& [begin, end] : regex_.FindAll(s)) {
      out.append(s, at, begin - at);
      out.append(content_);
      at = end;
    }
    out.append(s, at, std::string::npos);
    return out;
  }

 private:
  Regex regex_;
  std::string content_;
};

// --- Pre-tokenizers ------------------------------------------------------------------------

class SequencePreTokenizer : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> parts)
      : parts_(std::move(parts)) {}
  void PreTokenize(std::vector<Piece>& pieces) const override {
    for (const auto& p : parts_) p->PreTokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> parts_;
};

// Cuts every piece at the matches of a regex.
class SplitPreTokenizer : public PreTokenizer {
 public:
  SplitPreTokenizer(const std::string& pattern, SplitBehavior behavior, bool invert)
      : regex_(pattern), behavior_(behavior), invert_(invert) {}
  void PreTokenize(std::vector<Piece>& pieces) const override {
    std::vector<Piece> out;
    for (Piece& piece : pieces) {
      bool first = piece.first;
      for (std::string& part :
           SplitAt(piece.text, regex_.FindAll(piece.text), behavior_, invert_)) {
        out.push_back({std::move(part), first});
        first = false;
      }
    }
    pieces = std::move(out);
  }

 private:
  Regex regex_;
  SplitBehavior behavior_;
  bool invert_;
};

class ByteLevelPreTokenizer : public PreTokenizer {
 public:
  ByteLevelPreTokenizer(bool add_prefix_space, bool use_regex)
      : add_prefix_space_(add_prefix_space),
        split_(use_regex ? std::make_unique<SplitPreTokenizer>(
                               "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|"
                               "\\s+(?!\\S)|\\s+",
                               SplitBehavior::kIsolated, false)
                         : nullptr) {}
  void PreTokenize(std::vector<Piece>& pieces) const override {
    if (add_prefix_space_) {
      for (Piece& p : pieces) {
        if (p.text.empty() || p.text[0] != ' ') p.text.insert(0, " ");
      }
    }
    if (split_) split_->PreTokenize(pieces);
    const std::array<char32_t, 256>& chars = ByteChars();
    for (Piece& p : pieces) {
      std::string mapped;
      for (unsigned char b : p.text) AppendUtf8(chars[b], mapped);
      p.text = std::move(mapped);
    }
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<SplitPreTokenizer> split_;
};

class MetaspacePreTokenizer : public PreTokenizer {
 public:
  MetaspacePreTokenizer(std::string replacement, std::string scheme, bool split)
      : replacement_(std::move(replacement)),
        scheme_(std::move(scheme)),
        split_(split ? std::make_unique<SplitPreTokenizer>(EscapeRegex(replacement_),
                                                           SplitBehavior::kMergedWithNext, false)
                     : nullptr) {}
  void PreTokenize(std::vector<Piece>& pieces) const override {
    for (Piece& p : pieces) {
      ReplaceAll(p.text, " ", replacement_);
      const bool starts = p.text.starts_with(replacement_);
      if (!starts && (scheme_ == "always" || (scheme_ == "first" && p.first))) {
        p.text.insert(0, replacement_);
      }
    }
    if (split_) split_->PreTokenize(pieces);
  }

 private:
  std::string replacement_;
  std::string scheme_;
  std::unique_ptr<SplitPreTokenizer> split_;
};

// --- Decoders ------------------------------------------------------------------------------

class SequenceDecoder : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> parts)
      : parts_(std::move(parts)) {}
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    for (const auto& p : parts_) tokens = p->DecodeChain(std::move(tokens));
    return tokens;
  }

 private:
  std::vector<std::unique_ptr<Decoder>> parts_;
};

class ByteLevelDecoder : public Decoder {
 public:
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    std::string bytes;
    for (const std::string& t : tokens) {
      std::string mapped;
      bytes += ByteLevelBytes(t, &mapped) ? mapped : t;  // other characters: their own bytes
    }
    return {LossyUtf8(bytes)};
  }
};

class ReplaceDecoder : public Decoder {
 public:
  ReplaceDecoder(const std::string& pattern, std::string content)
      : normalizer_(pattern, std::move(content)) {}
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) t = normalizer_.Normalize(std::move(t));
    return tokens;
  }

 private:
  ReplaceNormalizer normalizer_;
};

class ByteFallbackDecoder : public Decoder {
 public:
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    std::vector<std::string> out;
    std::string pending;
    auto flush = [&] {
      if (pending.empty()) return;
      if (IsValidUtf8(pending)) {
        out.push_back(pending);
      } else {
        for (size_t i = 0; i < pending.size(); ++i) out.emplace_back("\xEF\xBF\xBD");
      }
      pending.clear();
    };
    for (std::string& t : tokens) {
      if (t.size() == 6 && t.starts_with("<0x") && t.back() == '>' &&
          std::isxdigit(static_cast<unsigned char>(t[3])) &&
          std::isxdigit(static_cast<unsigned char>(t[4]))) {
        pending.push_back(static_cast<char>(std::stoi(t.substr(3, 2), nullptr, 16)));
        continue;
      }
      flush();
      out.push_back(std::move(t));
    }
    flush();
    return out;
  }
};

class FuseDecoder : public Decoder {
 public:
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    std::string all;
    for (const std::string& t : tokens) all += t;
    return {all};
  }
};

class StripDecoder : public Decoder {
 public:
  StripDecoder(char32_t content, size_t start, size_t stop)
      : content_(content), start_(start), stop_(stop) {}
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    for (std::string& t : tokens) {
      std::vector<char32_t> chars = CodePoints(t);
      size_t begin = 0;
      while (begin < std::min(start_, chars.size()) && chars[begin] == content_) ++begin;
      size_t end = chars.size();
      for (size_t i = 0; i < stop_ && end > begin && chars[end - 1] == content_; ++i) --end;
      std::string kept;
      for (size_t i = begin; i < end; ++i) AppendUtf8(chars[i], kept);
      t = std::move(kept);
    }
    return tokens;
  }

 private:
  char32_t content_;
  size_t start_;
  size_t stop_;
};

class MetaspaceDecoder : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool prepends)
      : replacement_(std::move(replacement)), prepends_(prepends) {}
  std::vector<std::string> DecodeChain(std::vector<std::string> tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      ReplaceAll(tokens[i], replacement_, i == 0 && prepends_ ? "" : " ");
    }
    return tokens;
  }

 private:
  std::string replacement_;
  bool prepends_;
};

// Metaspace's fields, the same in its pre-tokenizer and its decoder.
struct MetaspaceFields {
  std::string replacement;
  std::string scheme;
  bool split;
};
MetaspaceFields MetaspaceOf(const Json& j) {
  MetaspaceFields f;
  f.replacement = StringField(j, "replacement", "Metaspace");
  if (CodePoints(f.replacement).size() != 1) Fail("Metaspace's replacement must be one character");
  if (auto it = j.find("prepend_scheme"); it != j.end() && it->is_string()) {
    f.scheme = it->get<std::string>();
  } else {
    f.scheme = BoolField(j, "add_prefix_space", true) ? "always" : "never";
  }
  if (f.scheme != "always" && f.scheme != "first" && f.scheme != "never") {
    Fail(fmt::format("Metaspace's prepend_scheme '{}' is not always, first or never", f.scheme));
  }
  f.split = BoolField(j, "split", true);
  return f;
}

// The parts of a Sequence (its array `field`), each made by `make` (null ones left out).
template <typename T>
std::vector<std::unique_ptr<T>> PartsOf(const Json& j, const char* field,
                                        std::unique_ptr<T> (*make)(const Json&)) {
  auto it = j.find(field);
  if (it == j.end() || !it->is_array()) Fail(fmt::format("a Sequence needs an array '{}'", field));
  std::vector<std::unique_ptr<T>> parts;
  for (const Json& part : *it) {
    if (auto made = make(part)) parts.push_back(std::move(made));
  }
  return parts;
}

const std::string& TypeOf(const Json& j, const char* what) {
  if (!j.is_object()) Fail(fmt::format("the {} must be an object", what));
  return StringField(j, "type", what);
}

}  // namespace

bool ByteLevelBytes(std::string_view token, std::string* bytes) {
  static const std::vector<int> kByteOf = [] {
    std::vector<int> v(512, -1);
    const std::array<char32_t, 256>& chars = ByteChars();
    for (int b = 0; b < 256; ++b) v[chars[b]] = b;
    return v;
  }();
  bytes->clear();
  for (char32_t c : CodePoints(token)) {
    if (c >= kByteOf.size() || kByteOf[c] < 0) return false;
    bytes->push_back(static_cast<char>(kByteOf[c]));
  }
  return true;
}

std::unique_ptr<Normalizer> MakeNormalizer(const Json& j) {
  if (j.is_null()) return nullptr;
  const std::string& type = TypeOf(j, "normalizer");
  if (type == "Sequence") {
    return std::make_unique<SequenceNormalizer>(PartsOf(j, "normalizers", MakeNormalizer));
  }
  if (type == "Prepend") {
    return std::make_unique<PrependNormalizer>(StringField(j, "prepend", "Prepend"));
  }
  if (type == "Replace") {
    return std::make_unique<ReplaceNormalizer>(PatternOf(j, "Replace"),
                                               StringField(j, "content", "Replace"));
  }
  Fail(fmt::format("the normalizer '{}' is not supported (Sequence, Prepend, Replace)", type));
}

std::unique_ptr<PreTokenizer> MakePreTokenizer(const Json& j) {
  if (j.is_null()) return nullptr;
  const std::string& type = TypeOf(j, "pre-tokenizer");
  if (type == "Sequence") {
    return std::make_unique<SequencePreTokenizer>(PartsOf(j, "pretokenizers", MakePreTokenizer));
  }
  if (type == "Split") {
    return std::make_unique<SplitPreTokenizer>(PatternOf(j, "Split"),
                                               BehaviorOf(j, SplitBehavior::kIsolated),
                                               BoolField(j, "invert", false));
  }
  if (type == "ByteLevel") {
    return std::make_unique<ByteLevelPreTokenizer>(BoolField(j, "add_prefix_space", true),
                                                   BoolField(j, "use_regex", true));
  }
  if (type == "Digits") {
    return std::make_unique<SplitPreTokenizer>("\\p{N}",
                                               BoolField(j, "individual_digits", false)
                                                   ? SplitBehavior::kIsolated
                                                   : SplitBehavior::kContiguous,
                                               false);
  }
  if (type == "Punctuation") {
    // Unicode punctuation and every ASCII punctuation character (symbols included), as Rust's
    // is_ascii_punctuation || is_punctuation.
    return std::make_unique<SplitPreTokenizer>(
        "[\\p{P}\\x21-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7E]",
        BehaviorOf(j, SplitBehavior::kIsolated), false);
  }
  if (type == "Metaspace") {
    MetaspaceFields f = MetaspaceOf(j);
    return std::make_unique<MetaspacePreTokenizer>(f.replacement, f.scheme, f.split);
  }
  Fail(fmt::format(
      "the pre-tokenizer '{}' is not supported (Sequence, Split, ByteLevel, Digits, Punctuation, "
      "Metaspace)",
      type));
}

std::unique_ptr<Decoder> MakeDecoder(const Json& j) {
  if (j.is_null()) return nullptr;
  const std::string& type = TypeOf(j, "decoder");
  if (type == "Sequence") {
    return std::make_unique<SequenceDecoder>(PartsOf(j, "decoders", MakeDecoder));
  }
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Replace") {
    return std::make_unique<ReplaceDecoder>(PatternOf(j, "Replace"),
                                            StringField(j, "content", "Replace"));
  }
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    const std::vector<char32_t> content = CodePoints(StringField(j, "content", "Strip"));
    if (content.size() != 1) Fail("Strip's content must be one character");
    return std::make_unique<StripDecoder>(content[0], j.value("start", size_t{0}),
                                          j.value("stop", size_t{0}));
  }
  if (type == "Metaspace") {
    MetaspaceFields f = MetaspaceOf(j);
    return std::make_unique<MetaspaceDecoder>(f.replacement, f.scheme != "never");
  }
  Fail(fmt::format(
      "the decoder '{}' is not supported (Sequence, ByteLevel, Replace, ByteFallback, Fuse, "
      "Strip, Metaspace)",
      type));
}

}  // namespace pipesplit::serve::text
