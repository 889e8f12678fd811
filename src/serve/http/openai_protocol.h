// The OpenAI API's requests and responses as `pipesplit serve` speaks them (openai_server.h):
// parsing and checking a /v1/completions or /v1/chat/completions body, and the JSON of
// responses, stream chunks and error objects. No sockets here.
#ifndef PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_
#define PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/text/tokenizer.h"

namespace pipesplit::serve::http {

// An error the API answers with: an HTTP status and OpenAI's error object
// {"error": {"message", "type", "param", "code"}}.
struct ApiError {
  int status = 400;
  std::string message;
  std::string param;  // the request field at fault, if any
  // "invalid_request_error" (4xx), "server_error" (500), "service_unavailable_error" (503).
  std::string Type() const;
  nlohmann::json Json() const;
};

// What the server fills in when a request leaves a field out.
struct RequestDefaults {
  double temperature = 1.0;
  double top_p = 1.0;
  int64_t completion_max_tokens = 16;  // /v1/completions (OpenAI's default); chat: no limit
  std::vector<int32_t> stop_token_ids;
};

struct CompletionRequest {
  bool chat = false;
  std::vector<std::vector<int32_t>> prompts;  // one choice each
  int64_t max_tokens = 0;                     // 0: as many as a sequence holds
  SamplingParams sampling;
  bool seeded = false;  // the request gave a seed (its draws do not depend on its id)
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  std::vector<int32_t> stop_token_ids;
};

// Parses and checks a request body (ApiError 400 naming the field for malformed JSON, a field
// of the wrong type or value, a field not supported, a text prompt without a tokenizer).
// `model` is the served model's name: another one is a 404. A request without a seed gets
// `fresh_seed`.
CompletionRequest ParseCompletionRequest(std::string_view body, bool chat,
                                         const text::Tokenizer* tokenizer,
                                         const RequestDefaults& defaults, const std::string& model,
                                         uint64_t fresh_seed);

// The parts of every response and chunk: id, object, created, model.
struct ResponseHeader {
  std::string id;  // "cmpl-7", "chatcmpl-7"
  int64_t created = 0;
  std::string model;
  bool chat = false;
};

struct ChoiceResult {
  std::vector<int32_t> tokens;
  std::string text;
  FinishReason finish = FinishReason::kNone;
};

nlohmann::json Usage(int64_t prompt_tokens, int64_t completion_tokens);
// The whole response of a request that did not stream.
nlohmann::json CompletionResponse(const ResponseHeader& header,
                                  const std::vector<ChoiceResult>& choices, int64_t prompt_tokens);
// One stream chunk of choice `index`: its new text and tokens, and its finish reason when it
// ended. A chat stream's first chunk of a choice carries the role (`first`).
nlohmann::json StreamChunk(const ResponseHeader& header, int64_t index, std::string_view text,
                           const std::vector<int32_t>& tokens, FinishReason finish, bool first);
// The usage chunk that ends a stream with include_usage (no choices).
nlohmann::json UsageChunk(const ResponseHeader& header, int64_t prompt_tokens,
                          int64_t completion_tokens);

}  // namespace pipesplit::serve::http

#endif  // PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_
