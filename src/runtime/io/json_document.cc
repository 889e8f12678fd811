// Located JSON (json_document.h).
#include "src/runtime/io/json_document.h"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>

#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::runtime {
namespace {

// A JSON pointer token: '~' as "~0", '/' as "~1".
std::string EscapePointerToken(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

// Walks a text nlohmann already accepted and records the byte range of every value under its
// JSON pointer. It trusts the text's validity (PS_CHECKs it).
class PositionScanner {
 public:
  PositionScanner(std::string_view text,
                  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>>* index)
      : text_(text), index_(index) {}

  void Scan() {
    if (text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;  // a UTF-8 byte order mark
    Value("");
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }
  char Peek() {
    PS_CHECK(pos_ < text_.size()) << "json scanner ran past the end";
    return text_[pos_];
  }
  void Expect(char c) {
    SkipSpace();
    PS_CHECK(Peek() == c) << "json scanner expected '" << c << "' at byte " << pos_;
    ++pos_;
  }
  void SkipString() {
    PS_CHECK(Peek() == '"');
    for (++pos_; Peek() != '"'; ++pos_) {
      if (text_[pos_] == '\\') ++pos_;
    }
    ++pos_;
  }
  void Value(const std::string& pointer) {
    SkipSpace();
    const size_t begin = pos_;
    const char c = Peek();
    if (c == '{') {
      ++pos_;
      SkipSpace();
      if (Peek() == '}') {
        ++pos_;
      } else {
        for (;;) {
          SkipSpace();
          const size_t key_begin = pos_;
          SkipString();
          const std::string key =
              Json::parse(text_.substr(key_begin, pos_ - key_begin)).get<std::string>();
          Expect(':');
          Value(pointer + "/" + EscapePointerToken(key));
          SkipSpace();
          if (Peek() == ',') {
            ++pos_;
            continue;
          }
          Expect('}');
          break;
        }
      }
    } else if (c == '[') {
      ++pos_;
      SkipSpace();
      if (Peek() == ']') {
        ++pos_;
      } else {
        for (size_t i = 0;; ++i) {
          Value(pointer + "/" + std::to_string(i));
          SkipSpace();
          if (Peek() == ',') {
            ++pos_;
            continue;
          }
          Expect(']');
          break;
        }
      }
    } else if (c == '"') {
      SkipString();
    } else {
      while (pos_ < text_.size() &&
             std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) {
        ++pos_;
      }
    }
    (*index_)[pointer] = {static_cast<uint32_t>(begin), static_cast<uint32_t>(pos_)};
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>>* index_;
};

// nlohmann's parse error without its prefix: "syntax error while parsing ...".
std::string ParseErrorText(const nlohmann::json::parse_error& e) {
  std::string what = e.what();
  const size_t colon = what.find(": ", what.find("parse error"));
  if (colon != std::string::npos) what = what.substr(colon + 2);
  return what;
}

// "records[0].nbytes" from "/records/0/nbytes".
std::string LabelOf(const std::string& pointer) {
  if (pointer.empty()) return "the root";
  std::string out;
  size_t at = 1;
  while (at <= pointer.size()) {
    size_t next = pointer.find('/', at);
    if (next == std::string::npos) next = pointer.size();
    std::string token = pointer.substr(at, next - at);
    for (size_t i = 0; (i = token.find('~', i)) != std::string::npos; ++i) {
      token.replace(i, 2, token.compare(i, 2, "~1") == 0 ? "/" : "~");
    }
    const bool index = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
    if (index) {
      out += "[" + token + "]";
    } else {
      out += (out.empty() ? "" : ".") + token;
    }
    at = next + 1;
  }
  return out;
}

}  // namespace

std::shared_ptr<JsonDocument> JsonDocument::ParseText(std::string_view text,
                                                      const std::string& name, Span anchor) {
  auto doc = std::shared_ptr<JsonDocument>(new JsonDocument());
  doc->name_ = name;
  doc->anchor_ = anchor;
  if (!anchor.valid()) {
    doc->file_ = SourceManager::Global().Add(name, std::string(text)).id();
  }
  try {
    doc->root_ = Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const uint32_t at = static_cast<uint32_t>(e.byte > 0 ? e.byte - 1 : 0);
    if (anchor.valid()) {
      pipesplit::ThrowError(
          anchor, fmt::format("{}: malformed json at byte {}: {}", name, at, ParseErrorText(e)));
    }
    const uint32_t begin = std::min<uint32_t>(at, static_cast<uint32_t>(text.size()));
    pipesplit::ThrowError(Span{doc->file_, begin, begin + 1},
                          "malformed json: " + ParseErrorText(e));
  } catch (const nlohmann::json::exception& e) {  // a number out of range
    if (anchor.valid()) pipesplit::ThrowError(anchor, name + ": malformed json: " + e.what());
    pipesplit::ThrowError(Span{doc->file_, 0, 1}, std::string("malformed json: ") + e.what());
  }
  if (!anchor.valid()) PositionScanner(text, &doc->index_).Scan();
  return doc;
}

std::shared_ptr<const JsonDocument> JsonDocument::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw RuntimeError(path + ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw RuntimeError(path + ": cannot read");
  return Parse(path, text.str());
}

std::shared_ptr<const JsonDocument> JsonDocument::Parse(const std::string& name,
                                                        std::string_view text) {
  return ParseText(text, name, Span{});
}

std::shared_ptr<const JsonDocument> JsonDocument::ParseAnchored(std::string_view text, Span anchor,
                                                                const std::string& what) {
  PS_CHECK(anchor.valid()) << "an anchored json document needs a location";
  return ParseText(text, what, anchor);
}

JsonValue JsonDocument::root() const { return JsonValue(this, &root_, ""); }

Span JsonDocument::SpanOf(const std::string& pointer) const {
  if (anchor_.valid()) return anchor_;
  // The value itself, else its nearest indexed ancestor.
  std::string at = pointer;
  for (;;) {
    auto it = index_.find(at);
    if (it != index_.end()) return Span{file_, it->second.first, it->second.second};
    if (at.empty()) return Span{file_, 0, 0};
    at.resize(at.rfind('/'));
  }
}

void JsonDocument::Fail(const std::string& pointer, const std::string& message) const {
  if (anchor_.valid()) {
    pipesplit::ThrowError(anchor_, name_ + ": " + message);
  }
  pipesplit::ThrowError(SpanOf(pointer), message);
}

std::string JsonValue::Label() const { return LabelOf(pointer_); }

void JsonValue::WrongType(const char* expected) const {
  std::string got = json_->dump();
  if (got.size() > 40) got = got.substr(0, 37) + "...";
  Fail(fmt::format("'{}' must be {}, got {}", Label(), expected, got));
}

std::optional<JsonValue> JsonValue::Find(std::string_view key) const {
  if (!json_->is_object()) WrongType("an object");
  auto it = json_->find(std::string(key));
  if (it == json_->end()) return std::nullopt;
  return JsonValue(doc_, &*it, pointer_ + "/" + EscapePointerToken(key));
}

JsonValue JsonValue::Field(std::string_view key) const {
  std::optional<JsonValue> field = Find(key);
  if (!field) {
    Fail(pointer_.empty() ? fmt::format("missing field '{}'", key)
                          : fmt::format("'{}' has no field '{}'", Label(), key));
  }
  return *field;
}

size_t JsonValue::ArraySize() const {
  if (!json_->is_array()) WrongType("a list");
  return json_->size();
}

JsonValue JsonValue::At(size_t index) const {
  PS_CHECK(json_->is_array() && index < json_->size()) << "json index " << index;
  return JsonValue(doc_, &(*json_)[index], pointer_ + "/" + std::to_string(index));
}

std::string JsonValue::String() const {
  if (!json_->is_string()) WrongType("a string");
  return json_->get<std::string>();
}

uint64_t JsonValue::Count() const {
  if (json_->is_number_unsigned()) return json_->get<uint64_t>();
  if (json_->is_number_integer() && json_->get<int64_t>() >= 0) {
    return static_cast<uint64_t>(json_->get<int64_t>());
  }
  WrongType("a non-negative integer");
}

int64_t JsonValue::Int() const {
  if (json_->is_number_integer() && !json_->is_number_unsigned()) return json_->get<int64_t>();
  if (json_->is_number_unsigned() &&
      json_->get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return static_cast<int64_t>(json_->get<uint64_t>());
  }
  WrongType("an integer");
}

double JsonValue::Number() const {
  if (!json_->is_number()) WrongType("a number");
  return json_->get<double>();
}

bool JsonValue::Bool() const {
  if (!json_->is_boolean()) WrongType("true or false");
  return json_->get<bool>();
}

}  // namespace pipesplit::runtime
