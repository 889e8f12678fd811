// Fields of the JSON files the models layer reads (config.json, mlc-chat-config.json), with
// located faults.
#ifndef PIPESPLIT_SRC_MODELS_JSON_FIELDS_H_
#define PIPESPLIT_SRC_MODELS_JSON_FIELDS_H_

#include <fmt/format.h>

#include <cstdint>

#include "src/runtime/io/json_document.h"

namespace pipesplit::models {

// `object[key]`, a positive integer; a located error when it is absent or not one.
inline int64_t PositiveIntField(const runtime::JsonValue& object, const char* key) {
  const runtime::JsonValue v = object.Field(key);
  const int64_t n = v.Int();
  if (n <= 0) v.Fail(fmt::format("'{}' must be a positive integer, got {}", v.Label(), n));
  return n;
}

}  // namespace pipesplit::models

#endif  // PIPESPLIT_SRC_MODELS_JSON_FIELDS_H_
