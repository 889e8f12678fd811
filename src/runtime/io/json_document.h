// JSON files whose faults are located: a malformed text, a missing field or a field of the
// wrong type is a DiagnosticError at the value at fault (`file:line:col: error: message`).
//
// nlohmann-json parses the text; a small scanner then indexes where every value is (its JSON
// pointer to its byte range), so a fault found later, in the parsed values, points into the
// file. A document parsed from a string inside another file (the JSON of an MLC module's
// `_metadata` function, an escaped string literal) is anchored instead: every fault is reported
// at the anchor, the message naming the path of the value inside the JSON.
#ifndef PIPESPLIT_SRC_RUNTIME_IO_JSON_DOCUMENT_H_
#define PIPESPLIT_SRC_RUNTIME_IO_JSON_DOCUMENT_H_

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "pipesplit/support/source.h"

namespace pipesplit::runtime {

using Json = nlohmann::ordered_json;

class JsonValue;

class JsonDocument {
 public:
  // Reads `path` and registers it as a source file. RuntimeError "<path>: cannot open ..." when
  // it cannot be read; DiagnosticError at the fault when it is not valid JSON.
  static std::shared_ptr<const JsonDocument> Load(const std::string& path);
  // Parses `text` registered under `name`.
  static std::shared_ptr<const JsonDocument> Parse(const std::string& name, std::string_view text);
  // Parses `text` that sits (escaped) inside another file at `anchor`; `what` names it in
  // messages ("the _metadata of model.py").
  static std::shared_ptr<const JsonDocument> ParseAnchored(std::string_view text, Span anchor,
                                                           const std::string& what);

  JsonValue root() const;
  const std::string& name() const { return name_; }
  // Where the value at `pointer` is (the anchor for an anchored document).
  Span SpanOf(const std::string& pointer) const;
  // A located fault of the value at `pointer`.
  [[noreturn]] void Fail(const std::string& pointer, const std::string& message) const;

 private:
  JsonDocument() = default;
  static std::shared_ptr<JsonDocument> ParseText(std::string_view text, const std::string& name,
                                                 Span anchor);

  std::string name_;
  Json root_;
  uint32_t file_ = 0;  // the registered source file; 0 when anchored
  Span anchor_;
  std::unordered_map<std::string, std::pair<uint32_t, uint32_t>> index_;  // pointer -> bytes
};

// A value of a document and where it is. Accessors check the kind of value they read and fail
// located ("field 'records[0].nbytes' must be a non-negative integer, got \"12\"").
class JsonValue {
 public:
  JsonValue(const JsonDocument* doc, const Json* json, std::string pointer)
      : doc_(doc), json_(json), pointer_(std::move(pointer)) {}

  const Json& json() const { return *json_; }
  const JsonDocument& document() const { return *doc_; }
  Span span() const { return doc_->SpanOf(pointer_); }
  // The value's path for messages: "records[0].records[3].nbytes" ("the root" for the root).
  std::string Label() const;
  [[noreturn]] void Fail(const std::string& message) const { doc_->Fail(pointer_, message); }

  // Objects. Field fails (at this object) when this is not an object or has no `key`.
  bool IsObject() const { return json_->is_object(); }
  std::optional<JsonValue> Find(std::string_view key) const;
  JsonValue Field(std::string_view key) const;
  // Arrays. Elements fails unless this is an array.
  size_t ArraySize() const;
  JsonValue At(size_t index) const;

  // Scalars.
  std::string String() const;
  uint64_t Count() const;  // a non-negative integer
  int64_t Int() const;
  double Number() const;
  bool Bool() const;
  bool IsNull() const { return json_->is_null(); }

 private:
  [[noreturn]] void WrongType(const char* expected) const;

  const JsonDocument* doc_;
  const Json* json_;
  std::string pointer_;
};

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_SRC_RUNTIME_IO_JSON_DOCUMENT_H_
