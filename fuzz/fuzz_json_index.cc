// libFuzzer target: located JSON (src/runtime/io/json_document.h), which MLC folders' indexes
// and configs are read through. Text nlohmann rejects must be a DiagnosticError; text it accepts
// must be indexed exactly: the bytes the index gives for every value parse back to that value.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_util.h"
#include "src/runtime/io/json_document.h"

namespace {

using pipesplit::runtime::Json;
using pipesplit::runtime::JsonDocument;

void Check(const JsonDocument& doc, std::string_view text, const Json& value,
           const std::string& pointer) {
  const pipesplit::Span span = doc.SpanOf(pointer);
  if (span.end < span.begin || span.end > text.size()) {
    pipesplit::fuzz::Finding("span of '" + pointer + "' outside the text");
  }
  const std::string_view bytes = text.substr(span.begin, span.end - span.begin);
  Json reparsed = Json::parse(bytes.begin(), bytes.end(), nullptr, /*allow_exceptions=*/false);
  // (A discarded value compares neither equal nor unequal.)
  if (reparsed.is_discarded() || !(reparsed == value)) {
    pipesplit::fuzz::Finding("the bytes indexed for '" + pointer + "' are '" + std::string(bytes) +
                             "', not the value " + value.dump());
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items()) {
      std::string token;
      for (char c : key) token += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
      Check(doc, text, item, pointer + "/" + token);
    }
  } else if (value.is_array()) {
    for (size_t i = 0; i < value.size(); ++i) {
      Check(doc, text, value[i], pointer + "/" + std::to_string(i));
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pipesplit::fuzz::NewInput();
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::shared_ptr<const JsonDocument> doc;
  try {
    doc = JsonDocument::Parse("fuzz.json", text);
  } catch (const pipesplit::DiagnosticError&) {
    return 0;
  }
  // (A key given twice keeps its last value, which is what the index points at too.)
  Check(*doc, text, doc->root().json(), "");
  return 0;
}
