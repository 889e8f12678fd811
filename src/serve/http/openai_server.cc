// The OpenAI API over the serving engine (openai_server.h).
//
// A completion request, steps:
//   1. Parse and check the body (openai_protocol.h); an error is answered at once.
//   2. Submit one engine request per choice (n per prompt), each with a callback that queues
//      its events on the request's Exchange (the engine's thread never blocks on a client; it
//      computes the log probabilities asked for, since the logits live only in the callback); a
//      refusal cancels the ones already submitted and is answered (400, or 503 for a full
//      queue).
//   3. Each choice's events go through one Choice (its text decoded incrementally and cut at
//      a stop string, whose match cancels its engine request), streamed or not, so a stream's
//      text is the whole response's text. Without streaming, wait for every choice to end
//      (cancelling them all when the client goes away) and answer with the whole response.
//      With streaming, answer with an SSE stream: each event becomes a chunk, then the usage
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
  res.set_content(Dump(error.Json()), kJson);
}

// What the engine's callbacks hand one HTTP request: every event of its choices, in order.
class Exchange {
 public:
  struct Item {
    int64_t choice;
    int32_t token;
    FinishReason finish;
    std::string error;
    std::optional<TokenLogprob> logprob;
  };

  explicit Exchange(size_t choices) : ids_(choices, -1), open_(choices) {}

  // The callback of choice `choice`; it keeps the exchange alive, since the engine may call it
  // after the HTTP request is gone (the cancellation's event). With `top_logprobs` it computes
  // each token's log probability and that many alternatives.
  static TokenSink Sink(const std::shared_ptr<Exchange>& exchange, int64_t choice,
                        std::optional<int> top_logprobs) {
    return [exchange, choice, top_logprobs](const TokenEvent& e) {
      std::optional<TokenLogprob> logprob;
      if (top_logprobs && e.token >= 0 && !e.logits.empty()) {
        logprob = LogprobOf(e.logits, e.token, *top_logprobs);
      }
      std::lock_guard lock(exchange->mu_);
      exchange->items_.push_back(
          {choice, e.token, e.finish, std::string(e.error), std::move(logprob)});
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
  // Counts a choice ended for the client; whether every choice has ended.
  bool End() { return --open_ == 0; }
  bool Done() const { return open_ == 0; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> items_;
  std::vector<int64_t> ids_;  // the engine's id of each choice's request
  size_t open_;               // choices not ended (read by the handler's thread only)
};

// One choice as the client sees it, streamed or not: its tokens, its text (cut at a stop
// string) and log probabilities, and how it ended.
class Choice {
 public:
  Choice(const text::Tokenizer* tokenizer, const CompletionRequest& cr, std::string echo)
      : echo_(std::move(echo)), offset_(static_cast<int64_t>(echo_.size())) {
    if (tokenizer != nullptr) text_.emplace(*tokenizer, cr.stop);
  }

  // What one engine event adds: its text (the echoed prompt first), tokens and log
  // probabilities; `finish` is set when the choice ends with it. A stop token ends the text
  // before it; a stop string, before the string (the caller cancels the engine's request).
  // Events after the end add nothing.
  struct Delta {
    std::string text;
    std::vector<int32_t> tokens;
    std::vector<TokenLogprob> logprobs;
    FinishReason finish = FinishReason::kNone;
  };
  Delta Take(Exchange::Item& item) {
    Delta d;
    if (finish_ != FinishReason::kNone) return d;
    if (!started_) d.text = echo_;
    started_ = true;
    if (item.token >= 0) {
      d.tokens.push_back(item.token);
      if (item.logprob) d.logprobs.push_back(std::move(*item.logprob));
      if (text_ && item.finish != FinishReason::kStop) d.text += text_->Push(item.token);
      if (text_ && text_->stopped()) d.finish = FinishReason::kStop;
    }
    if (d.finish == FinishReason::kNone && item.finish != FinishReason::kNone) {
      if (text_) d.text += text_->Finish();
      d.finish = item.finish;
    }
    finish_ = d.finish;
    tokens_.insert(tokens_.end(), d.tokens.begin(), d.tokens.end());
    return d;
  }
  // The log probabilities' text offset of the next tokens (completions; LogprobsJson
  // advances it).
  int64_t* text_offset() { return &offset_; }
  bool stopped_by_text() const { return text_ && text_->stopped(); }
  FinishReason finish() const { return finish_; }
  const std::vector<int32_t>& tokens() const { return tokens_; }
  bool started() const { return started_; }

 private:
  std::optional<text::StoppingText> text_;
  std::string echo_;
  int64_t offset_ = 0;
  std::vector<int32_t> tokens_;
  bool started_ = false;
  FinishReason finish_ = FinishReason::kNone;
};

std::string SseEvent(const json& data) { return "data: " + Dump(data) + "\n\n"; }

}  // namespace

struct OpenAiServer::Impl {
  Impl(Engine& e, const text::Tokenizer* t, ServerOptions o)
      : engine(e), tokenizer(t), options(std::move(o)), rng(std::random_device{}()) {
    defaults.temperature = options.temperature;
    defaults.top_p = options.top_p;
    defaults.stop_token_ids = options.stop_token_ids;
    defaults.conversation = options.conversation;
  }

  void Routes();
  void Completion(const httplib::Request& req, httplib::Response& res, bool chat);
  void Respond(const CompletionRequest& cr, const ResponseHeader& header,
               const std::shared_ptr<Exchange>& exchange, const httplib::Request& req,
               httplib::Response& res);
  void Stream(const CompletionRequest& cr, const ResponseHeader& header,
              const std::shared_ptr<Exchange>& exchange, const httplib::Request& req,
              httplib::Response& res);
  // Every choice of `cr`, in order (n per prompt), with its echoed prompt.
  std::vector<Choice> Choices(const CompletionRequest& cr) const;
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
  const size_t num_choices = cr.prompts.size() * static_cast<size_t>(cr.n);
  auto exchange = std::make_shared<Exchange>(num_choices);  // step 2
  for (size_t i = 0; i < num_choices; ++i) {
    EngineRequest er;
    er.prompt = cr.prompts[i / static_cast<size_t>(cr.n)];
    er.max_tokens = cr.max_tokens > 0 ? cr.max_tokens : std::numeric_limits<int32_t>::max();
    er.sampling = cr.sampling;
    if (cr.seeded) er.sample_key = i;
    er.stop_token_ids = cr.stop_token_ids;
    er.logits = cr.logprobs.has_value();
    SubmitResult submitted = engine.Submit(
        std::move(er), Exchange::Sink(exchange, static_cast<int64_t>(i), cr.logprobs));
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

std::vector<Choice> OpenAiServer::Impl::Choices(const CompletionRequest& cr) const {
  std::vector<Choice> choices;
  for (size_t p = 0; p < cr.prompts.size(); ++p) {
    std::string echo;
    if (cr.echo) {
      echo = p < cr.prompt_texts.size() && cr.prompt_texts[p] ? *cr.prompt_texts[p]
                                                              : tokenizer->Decode(cr.prompts[p]);
    }
    for (int64_t k = 0; k < cr.n; ++k) choices.emplace_back(tokenizer, cr, echo);
  }
  return choices;
}

void OpenAiServer::Impl::Respond(const CompletionRequest& cr, const ResponseHeader& header,
                                 const std::shared_ptr<Exchange>& exchange,
                                 const httplib::Request& req, httplib::Response& res) {
  ++open_requests;
  ConnectionWatch watch(req);
  std::vector<Choice> choices = Choices(cr);
  std::vector<ChoiceResult> results(choices.size());
  std::vector<std::vector<TokenLogprob>> logprobs(choices.size());
  int64_t prompt_tokens = 0;
  for (const std::vector<int32_t>& p : cr.prompts) prompt_tokens += static_cast<int64_t>(p.size());
  prompt_tokens *= cr.n;
  std::optional<std::string> error;
  while (!exchange->Done()) {
    for (Exchange::Item& item : exchange->Take(kPoll)) {
      if (item.finish == FinishReason::kError && !error) error = item.error;
      Choice& choice = choices[item.choice];
      ChoiceResult& r = results[item.choice];
      Choice::Delta d = choice.Take(item);
      r.text += d.text;
      for (TokenLogprob& t : d.logprobs) logprobs[item.choice].push_back(std::move(t));
      if (d.finish == FinishReason::kNone) continue;
      if (choice.stopped_by_text()) engine.Cancel(exchange->ids()[item.choice]);
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
  for (size_t i = 0; i < choices.size(); ++i) {
    ChoiceResult& r = results[i];
    r.tokens = choices[i].tokens();
    r.finish = choices[i].finish();
    if (cr.logprobs) {
      r.logprobs = LogprobsJson(logprobs[i], cr.chat, tokenizer, choices[i].text_offset());
    }
  }
  res.set_content(Dump(CompletionResponse(header, results, prompt_tokens)), kJson);
}

void OpenAiServer::Impl::Stream(const CompletionRequest& cr, const ResponseHeader& header,
                                const std::shared_ptr<Exchange>& exchange,
                                const httplib::Request& req, httplib::Response& res) {
  ++open_requests;
  struct State {
    std::vector<Choice> choices;
    int64_t prompt_tokens = 0;
    int64_t completion_tokens = 0;
    bool finished = false;
  };
  auto state = std::make_shared<State>();
  state->choices = Choices(cr);
  for (const std::vector<int32_t>& p : cr.prompts) {
    state->prompt_tokens += static_cast<int64_t>(p.size()) * cr.n;
  }
  auto watch = std::make_shared<ConnectionWatch>(req);
  const bool include_usage = cr.include_usage;
  const bool logprobs = cr.logprobs.has_value();
  res.set_header("Cache-Control", "no-cache");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, exchange, state, watch, header, include_usage, logprobs](size_t,
                                                                      httplib::DataSink& sink) {
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
            Choice& choice = state->choices[item.choice];
            const bool first = !choice.started();
            Choice::Delta d = choice.Take(item);
            if (d.tokens.empty() && d.finish == FinishReason::kNone && d.text.empty()) continue;
            state->completion_tokens += static_cast<int64_t>(d.tokens.size());
            json lp = nullptr;
            if (logprobs) {
              lp = LogprobsJson(d.logprobs, header.chat, tokenizer, choice.text_offset());
            }
            out += SseEvent(
                StreamChunk(header, item.choice, d.text, d.tokens, d.finish, first, std::move(lp)));
            if (d.finish == FinishReason::kNone) continue;
            if (choice.stopped_by_text()) engine.Cancel(exchange->ids()[item.choice]);
            if (exchange->End()) {
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
