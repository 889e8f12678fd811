// The OpenAI API over the serving engine (openai_server.h).
//
// A completion request, steps:
//   1. Parse and check the body (openai_protocol.h); an error is answered at once.
//   2. Submit one engine request per prompt, each with a callback that queues its events on
//      the request's Exchange (the engine's thread never blocks on a client); a refusal
//      cancels the ones already submitted and is answered (400, or 503 for a full queue).
//   3. Without streaming, wait for every choice to end (cancelling them all when the client
//      goes away) and answer with the whole response. With streaming, answer with an SSE
//      stream: each event becomes a chunk (its text decoded incrementally), then the usage
//      chunk when asked for and `data: [DONE]`; an engine error becomes an error event. A
//      client that goes away (a failed write, or its socket closed) has its choices cancelled.
#include "pipesplit/serve/http/openai_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <mutex>
#include <optional>
#include <random>
#include <thread>

#include "src/serve/http/connection.h"
#include "src/serve/http/openai_protocol.h"
#include "src/serve/http/prometheus.h"

namespace pipesplit::serve::http {
namespace {

using nlohmann::json;

constexpr auto kPoll = std::chrono::milliseconds(50);
constexpr const char kJson[] = "application/json";

void Answer(httplib::Response& res, const ApiError& error) {
  res.status = error.status;
  res.set_content(error.Json().dump(), kJson);
}

// What the engine's callbacks hand one HTTP request: every event of its choices, in order.
class Exchange {
 public:
  struct Item {
    int64_t choice;
    int32_t token;
    FinishReason finish;
    std::string error;
  };

  explicit Exchange(size_t choices) : ids_(choices, -1), open_(choices) {}

  // The callback of choice `choice`; it keeps the exchange alive, since the engine may call it
  // after the HTTP request is gone (the cancellation's event).
  static TokenSink Sink(const std::shared_ptr<Exchange>& exchange, int64_t choice) {
    return [exchange, choice](const TokenEvent& e) {
      std::lock_guard lock(exchange->mu_);
      exchange->items_.push_back({choice, e.token, e.finish, std::string(e.error)});
      exchange->cv_.notify_one();
    };
  }
  void SetId(int64_t choice, int64_t id) { ids_[choice] = id; }
  const std::vector<int64_t>& ids() const { return ids_; }

  // The events queued so far, waiting up to `timeout` for one.
  std::deque<Item> Take(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return !items_.empty(); });
    return std::exchange(items_, {});
  }
  // Counts an ended choice; whether every choice has ended.
  bool End() { return --open_ == 0; }
  bool Done() const { return open_ == 0; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> items_;
  std::vector<int64_t> ids_;  // the engine's id of each choice's request
  size_t open_;               // choices not ended (read by the handler's thread only)
};

std::string SseEvent(const json& data) { return "data: " + data.dump() + "\n\n"; }

}  // namespace

struct OpenAiServer::Impl {
  Impl(Engine& e, const text::Tokenizer* t, ServerOptions o)
      : engine(e), tokenizer(t), options(std::move(o)), rng(std::random_device{}()) {
    defaults.temperature = options.temperature;
    defaults.top_p = options.top_p;
    defaults.stop_token_ids = options.stop_token_ids;
  }

  void Routes();
  void Completion(const httplib::Request& req, httplib::Response& res, bool chat);
  void Respond(const CompletionRequest& cr, const ResponseHeader& header,
               const std::shared_ptr<Exchange>& exchange, const httplib::Request& req,
               httplib::Response& res);
  void Stream(const CompletionRequest& cr, const ResponseHeader& header,
              const std::shared_ptr<Exchange>& exchange, const httplib::Request& req,
              httplib::Response& res);
  void CancelAll(const Exchange& exchange) {
    for (int64_t id : exchange.ids()) {
      if (id >= 0) engine.Cancel(id);
    }
  }
  uint64_t FreshSeed() {
    std::lock_guard lock(rng_mu);
    return rng();
  }

  Engine& engine;
  const text::Tokenizer* tokenizer;
  const ServerOptions options;
  RequestDefaults defaults;
  httplib::Server server;
  std::thread listener;
  int port = 0;
  std::atomic<int64_t> open_requests{0};
  std::atomic<int64_t> next_id{0};
  std::mutex rng_mu;
  std::mt19937_64 rng;
};

void OpenAiServer::Impl::Completion(const httplib::Request& req, httplib::Response& res,
                                    bool chat) {
  if (engine.state() != Engine::State::kReady) {
    return Answer(res, {503, "the engine is not serving", ""});
  }
  CompletionRequest cr;  // step 1
  try {
    cr = ParseCompletionRequest(req.body, chat, tokenizer, defaults, options.model_name,
                                FreshSeed());
  } catch (const ApiError& error) {
    return Answer(res, error);
  }
  auto exchange = std::make_shared<Exchange>(cr.prompts.size());  // step 2
  for (size_t i = 0; i < cr.prompts.size(); ++i) {
    EngineRequest er;
    er.prompt = cr.prompts[i];
    er.max_tokens = cr.max_tokens > 0 ? cr.max_tokens : std::numeric_limits<int32_t>::max();
    er.sampling = cr.sampling;
    if (cr.seeded) er.sample_key = i;
    er.stop_token_ids = cr.stop_token_ids;
    SubmitResult submitted =
        engine.Submit(std::move(er), Exchange::Sink(exchange, static_cast<int64_t>(i)));
    if (submitted.status != SubmitResult::Status::kOk) {
      CancelAll(*exchange);
      const bool busy = submitted.status == SubmitResult::Status::kQueueFull ||
                        submitted.status == SubmitResult::Status::kUnavailable;
      return Answer(
          res, {busy ? 503 : 400, submitted.message, busy ? "" : (chat ? "messages" : "prompt")});
    }
    exchange->SetId(static_cast<int64_t>(i), submitted.id);
  }
  ResponseHeader header;
  header.chat = chat;
  header.id = fmt::format("{}-{}", chat ? "chatcmpl" : "cmpl", next_id++);
  header.created = static_cast<int64_t>(std::time(nullptr));
  header.model = options.model_name;
  if (cr.stream) {  // step 3
    Stream(cr, header, exchange, req, res);
  } else {
    Respond(cr, header, exchange, req, res);
  }
}

void OpenAiServer::Impl::Respond(const CompletionRequest& cr, const ResponseHeader& header,
                                 const std::shared_ptr<Exchange>& exchange,
                                 const httplib::Request& req, httplib::Response& res) {
  ++open_requests;
  ConnectionWatch watch(req);
  std::vector<ChoiceResult> choices(cr.prompts.size());
  std::optional<std::string> error;
  while (!exchange->Done()) {
    for (Exchange::Item& item : exchange->Take(kPoll)) {
      ChoiceResult& c = choices[item.choice];
      if (item.token >= 0) c.tokens.push_back(item.token);
      if (item.finish == FinishReason::kNone) continue;
      c.finish = item.finish;
      if (item.finish == FinishReason::kError && !error) error = item.error;
      exchange->End();
    }
    if (!exchange->Done() && watch.Closed()) {
      CancelAll(*exchange);
      --open_requests;
      res.status = 499;  // the client closed the connection: nobody reads the answer
      return;
    }
  }
  --open_requests;
  if (error) return Answer(res, {engine.state() == Engine::State::kFailed ? 500 : 503, *error, ""});
  int64_t prompt_tokens = 0;
  for (const std::vector<int32_t>& p : cr.prompts) prompt_tokens += static_cast<int64_t>(p.size());
  for (ChoiceResult& c : choices) {
    if (tokenizer == nullptr) continue;
    std::span<const int32_t> shown(c.tokens);
    if (c.finish == FinishReason::kStop && !shown.empty()) shown = shown.first(shown.size() - 1);
    c.text = tokenizer->Decode(shown);
  }
  res.set_content(CompletionResponse(header, choices, prompt_tokens).dump(), kJson);
}

void OpenAiServer::Impl::Stream(const CompletionRequest& cr, const ResponseHeader& header,
                                const std::shared_ptr<Exchange>& exchange,
                                const httplib::Request& req, httplib::Response& res) {
  ++open_requests;
  struct State {
    std::vector<std::optional<text::IncrementalDecoder>> decoders;
    std::vector<bool> started;
    int64_t prompt_tokens = 0;
    int64_t completion_tokens = 0;
    bool finished = false;
  };
  auto state = std::make_shared<State>();
  for (size_t i = 0; i < cr.prompts.size(); ++i) {
    state->decoders.emplace_back();
    if (tokenizer != nullptr) state->decoders.back().emplace(*tokenizer);
    state->prompt_tokens += static_cast<int64_t>(cr.prompts[i].size());
  }
  state->started.assign(cr.prompts.size(), false);
  auto watch = std::make_shared<ConnectionWatch>(req);
  const bool include_usage = cr.include_usage;
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, exchange, state, watch, header, include_usage](size_t, httplib::DataSink& sink) {
        // The events taken at once go out in one write: a client that reads slowly gets what
        // has queued meanwhile, the failure's error event included, without a call per token.
        for (;;) {
          std::string out;
          bool finished = false;
          for (Exchange::Item& item : exchange->Take(kPoll)) {
            if (item.finish == FinishReason::kError) {
              const ApiError error{engine.state() == Engine::State::kFailed ? 500 : 503, item.error,
                                   ""};
              out += SseEvent(error.Json()) + "data: [DONE]\n\n";
              CancelAll(*exchange);
              finished = true;
              break;
            }
            std::string text;
            std::vector<int32_t> tokens;
            if (item.token >= 0) {
              tokens.push_back(item.token);
              ++state->completion_tokens;
              auto& decoder = state->decoders[item.choice];
              if (decoder && item.finish != FinishReason::kStop) text = decoder->Push(item.token);
            }
            if (tokens.empty() && item.finish == FinishReason::kNone) continue;
            out += SseEvent(StreamChunk(header, item.choice, text, tokens, item.finish,
                                        !state->started[item.choice]));
            state->started[item.choice] = true;
            if (item.finish != FinishReason::kNone && exchange->End()) {
              if (include_usage) {
                out += SseEvent(UsageChunk(header, state->prompt_tokens, state->completion_tokens));
              }
              out += "data: [DONE]\n\n";
              finished = true;
              break;
            }
          }
          if (finished) {
            state->finished = true;  // the request is over, written in full or not
            if (!sink.write(out.data(), out.size())) return false;
            sink.done();
            return true;
          }
          if (!out.empty() && !sink.write(out.data(), out.size())) return false;
          if (watch->Closed() || !sink.is_writable()) return false;
        }
      },
      [this, exchange, state](bool) {
        if (!state->finished) CancelAll(*exchange);
        --open_requests;
      });
}

void OpenAiServer::Impl::Routes() {
  server.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    Completion(req, res, /*chat=*/false);
  });
  server.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    if (tokenizer == nullptr) {
      return Answer(res, {400,
                          "chat completions need a tokenizer: start the server with "
                          "--tokenizer tokenizer.model",
                          "messages"});
    }
    Completion(req, res, /*chat=*/true);
  });
  server.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    const EngineInfo info = engine.info();
    json model = {{"id", options.model_name},
                  {"object", "model"},
                  {"created", static_cast<int64_t>(std::time(nullptr))},
                  {"owned_by", "pipesplit"},
                  {"max_model_len", info.max_sequence_length}};
    res.set_content(json{{"object", "list"}, {"data", json::array({model})}}.dump(), kJson);
  });
  server.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    const Engine::State state = engine.state();
    if (state == Engine::State::kReady) {
      res.set_content(R"({"status":"ok"})", kJson);
    } else {
      Answer(
          res,
          {503, state == Engine::State::kFailed ? "the engine failed" : "the engine is not serving",
           ""});
    }
  });
  server.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(PrometheusText(engine.Metrics(), options.model_name),
                    "text/plain; version=0.0.4");
  });
  // The right path with the wrong method.
  auto wrong_method = [](const char* allowed) {
    return [allowed](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", allowed);
      Answer(res,
             {405, fmt::format("{} {} is not allowed; use {}", req.method, req.path, allowed), ""});
    };
  };
  for (const char* path : {"/v1/completions", "/v1/chat/completions"}) {
    server.Get(path, wrong_method("POST"));
    server.Put(path, wrong_method("POST"));
    server.Delete(path, wrong_method("POST"));
  }
  for (const char* path : {"/v1/models", "/health", "/metrics"}) {
    server.Post(path, wrong_method("GET"));
  }
  server.set_error_handler(
      httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
        std::string message;
        switch (res.status) {
          case 404:
            message = fmt::format("no such endpoint: {} {}", req.method, req.path);
            break;
          case 413:
            message = "the request body is too large";
            break;
          case 400:
            message = "malformed HTTP request";
            break;
          default:
            message = fmt::format("HTTP error {}", res.status);
        }
        Answer(res, {res.status, message, ""});
        return httplib::Server::HandlerResponse::Handled;
      }));
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, const std::exception_ptr& ep) {
        std::string message = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          message = e.what();
        } catch (...) {
        }
        Answer(res, {500, message, ""});
      });
}

OpenAiServer::OpenAiServer(Engine& engine, const text::Tokenizer* tokenizer, ServerOptions options)
    : impl_(std::make_unique<Impl>(engine, tokenizer, std::move(options))) {}

OpenAiServer::~OpenAiServer() { Stop(); }

void OpenAiServer::Start() {
  Impl& s = *impl_;
  s.Routes();
  const size_t max_connections =
      static_cast<size_t>(std::max<int64_t>(1, s.options.max_connections));
  s.server.new_task_queue = [max_connections] { return new ConnectionThreads(max_connections); };
  s.server.set_payload_max_length(static_cast<size_t>(s.options.max_body_bytes));
  s.server.set_keep_alive_timeout(2);
  int listen_fd = -1;
  errno = 0;
  s.server.set_socket_options([&listen_fd](socket_t fd) {
    int yes = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    listen_fd = fd;
  });
  const bool bound = s.options.port == 0 ? (s.port = s.server.bind_to_any_port(s.options.host)) > 0
                                         : s.server.bind_to_port(s.options.host, s.options.port);
  if (!bound) {
    const int error = errno;
    throw runtime::RuntimeError(
        fmt::format("cannot listen on {}:{}: {}", s.options.host, s.options.port,
                    error != 0 ? std::strerror(error) : "not an address to bind"));
  }
  if (s.options.port != 0) s.port = s.options.port;
  if (listen_fd >= 0) WidenBacklog(listen_fd, 1024);
  s.listener = std::thread([&s] { s.server.listen_after_bind(); });
}

int OpenAiServer::port() const { return impl_->port; }

void OpenAiServer::Stop() {
  Impl& s = *impl_;
  if (!s.listener.joinable()) return;
  s.server.stop();
  s.listener.join();
}

int64_t OpenAiServer::open_requests() const { return impl_->open_requests; }

}  // namespace pipesplit::serve::http
