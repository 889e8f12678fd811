// The OpenAI API's requests and responses as `pipesplit serve` speaks them (openai_server.h):
// parsing and checking a /v1/completions or /v1/chat/completions body, and the JSON of
// responses, stream chunks and error objects. No sockets here.
#ifndef PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_
#define PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/text/conversation.h"
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
  // The model's conversation template (chat prompts, its stop strings and stop ids); without one
  // the plain template of text::ChatPrompt.
  std::optional<text::ConversationTemplate> conversation;
};

// Limits of a request's fields.
inline constexpr int64_t kMaxChoices = 128;  // n x prompts
inline constexpr size_t kMaxStopStrings = 4;
inline constexpr int kMaxTopLogprobs = 20;

struct CompletionRequest {
  bool chat = false;
  std::vector<std::vector<int32_t>> prompts;
  // A prompt's text when it came as text (completions; echo gives it back as it came).
  std::vector<std::optional<std::string>> prompt_texts;
  int64_t n = 1;                  // choices per prompt: choice i is of prompt i / n
  std::vector<std::string> stop;  // the text ends before the first of them
  // Log probabilities of the chosen tokens with this many alternatives each; nullopt: none.
  std::optional<int> logprobs;
  bool echo = false;       // completions: the prompt's text before each choice's
  int64_t max_tokens = 0;  // 0: as many as a sequence holds
  SamplingParams sampling;
  // The request gave a seed: choice i's draws are keyed by i, so they are the same whatever
  // else is batched.
  bool seeded = false;
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

// A chosen token's log probability (the log-softmax of the logits it was sampled from) and
// the `top` most likely tokens' (ties to the lower id).
struct TokenLogprob {
  int32_t token = -1;
  float logprob = 0;
  std::vector<std::pair<int32_t, float>> top;
};
TokenLogprob LogprobOf(std::span<const float> logits, int32_t token, int top);

// OpenAI's `logprobs` object of `tokens`: for chat {"content": [{token, logprob, bytes,
// top_logprobs}]}, for completions {tokens, token_logprobs, top_logprobs, text_offset} with
// offsets from `*text_offset` (the text before the first token), which it advances past the
// tokens (a stream's next chunk goes on from there). A token is named by its bytes
// (Tokenizer::TokenBytes), or "token_id:N" without a tokenizer.
nlohmann::json LogprobsJson(const std::vector<TokenLogprob>& tokens, bool chat,
                            const text::Tokenizer* tokenizer, int64_t* text_offset);

// A response's JSON text; bytes that are not UTF-8 (a token ending inside a character) become
// U+FFFD.
std::string Dump(const nlohmann::json& j);

struct ChoiceResult {
  std::vector<int32_t> tokens;
  std::string text;
  FinishReason finish = FinishReason::kNone;
  nlohmann::json logprobs = nullptr;  // LogprobsJson, or null
};

nlohmann::json Usage(int64_t prompt_tokens, int64_t completion_tokens);
// The whole response of a request that did not stream.
nlohmann::json CompletionResponse(const ResponseHeader& header,
                                  const std::vector<ChoiceResult>& choices, int64_t prompt_tokens);
// One stream chunk of choice `index`: its new text and tokens, and its finish reason when it
// ended. A chat stream's first chunk of a choice carries the role (`first`).
nlohmann::json StreamChunk(const ResponseHeader& header, int64_t index, std::string_view text,
                           const std::vector<int32_t>& tokens, FinishReason finish, bool first,
                           nlohmann::json logprobs = nullptr);
// The usage chunk that ends a stream with include_usage (no choices).
nlohmann::json UsageChunk(const ResponseHeader& header, int64_t prompt_tokens,
                          int64_t completion_tokens);

}  // namespace pipesplit::serve::http

#endif  // PIPESPLIT_SRC_RUNTIME_HTTP_OPENAI_PROTOCOL_H_
