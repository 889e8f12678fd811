// `pipesplit serve`'s HTTP server: the OpenAI API over the serving engine (serve/engine.h),
// with cpp-httplib.
//
//   POST /v1/completions       prompt: token ids, a list of token id lists (one choice each),
//                              or text when a tokenizer is loaded; max_tokens, temperature,
//                              top_p, seed, stream (SSE chunks ending with `data: [DONE]`),
//                              stream_options.include_usage, stop_token_ids, ignore_eos, n = 1
//   POST /v1/chat/completions  messages through the model's conversation template
//                              (text/conversation.h: MLC's, with its stop strings and ids) or
//                              the plain one (text/tokenizer.h); needs a tokenizer
//   GET  /v1/models            the served model
//   GET  /health               200 while the engine serves, else 503
//   GET  /metrics              Prometheus text (names prefixed "pipesplit:")
// Responses and chunks have OpenAI's shapes, each choice with its `token_ids` too; errors are
// OpenAI error objects: 400 for malformed JSON, fields of the wrong type or value and prompts
// longer than a sequence can hold (the message names the limit), 404 for unknown paths and
// models, 405 for wrong methods, 413 for oversize bodies, 503 when the queue is full or the
// engine does not serve. A client that goes away has its requests cancelled (its sequences
// leave the caches at the next step); a failing engine ends every open stream with an error
// event.
//
// Layering: this folder sits above serve/engine and serve/text and below the CLI, which
// only wires flags to it; a library of its own (pipesplit_runtime_http) so that only the
// server links cpp-httplib.
#ifndef PIPESPLIT_RUNTIME_HTTP_OPENAI_SERVER_H_
#define PIPESPLIT_RUNTIME_HTTP_OPENAI_SERVER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/text/conversation.h"
#include "pipesplit/serve/text/tokenizer.h"

namespace pipesplit::serve::http {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8000;  // 0: a free port (port() tells which)
  std::string model_name = "model";
  // Requests that give no value get these.
  double temperature = 1.0;
  double top_p = 1.0;
  std::vector<int32_t> stop_token_ids;  // the model's end-of-sequence ids (ignore_eos drops them)
  // The model's conversation template (an MLC folder's conv_template): chat prompts are built
  // with it, and chat requests stop on its stop strings and ids too. Without one, the plain
  // template of text::ChatPrompt.
  std::optional<text::ConversationTemplate> conversation;
  // Connections served at once (each has a thread); more wait to be accepted.
  int64_t max_connections = 4096;
  int64_t max_body_bytes = 64 << 20;
};

class OpenAiServer {
 public:
  // `engine` and `tokenizer` (may be null: token ids only, no chat) outlive the server.
  OpenAiServer(Engine& engine, const text::Tokenizer* tokenizer, ServerOptions options);
  ~OpenAiServer();
  OpenAiServer(const OpenAiServer&) = delete;
  OpenAiServer& operator=(const OpenAiServer&) = delete;

  // Binds the address and serves on threads of its own; RuntimeError "cannot listen on
  // host:port" when the address cannot be bound.
  void Start();
  // The port bound (after Start).
  int port() const;
  // Stops accepting and waits for the open connections to end.
  void Stop();
  // Requests being answered (streams included).
  int64_t open_requests() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace pipesplit::serve::http

#endif  // PIPESPLIT_RUNTIME_HTTP_OPENAI_SERVER_H_
