// The serving engine's controller (engine.h), on worker 0 beside group 0.
//
// Control, steps:
//   1. Size the caches: the module's creator arguments give each group's bytes per token, the
//      budget gives the tokens (kv_budget.h); every other worker gets the setup command and
//      worker 0 makes its own cache. The engine is ready; on_ready runs.
//   2. Loop until shutdown (or, with stop_when_idle, until no request is left):
//        a. take what Submit, Cancel and Shutdown handed over (new requests join the
//           scheduler's queue, cancelled ones leave it);
//        b. issue every step the scheduler can give now: the command goes to every other
//           worker, then worker 0 runs its own part (group 0's stage);
//        c. once a second while steps run and when they stop, ask every group for its busy
//           time (kStats);
//        d. publish the metrics;
//        e. take the oldest reply (a step's logits from the last group, or the busy times) and
//           hand the sampled tokens to their requests' callbacks; when nothing is in flight,
//           wait for work (a heartbeat to every worker when none comes for a while).
//   3. Send the stop command.
// A failure ends every open request with a kError event naming it, then is rethrown.
#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <optional>
#include <unordered_map>

#include "pipesplit/support/check.h"
#include "src/serve/engine/engine_impl.h"
#include "src/serve/engine/kv_budget.h"
#include "src/serve/engine/scheduler.h"
#include "src/serve/engine/serving_worker.h"

namespace pipesplit::serve {
namespace {

using engine::Command;
using engine::StepKind;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

constexpr auto kStatsInterval = std::chrono::seconds(1);

class Controller {
 public:
  Controller(Engine::Impl& engine, engine::ServingWorker& worker, runtime::Transport& transport,
             EngineRunResult& result)
      : e_(engine),
        options_(engine.options),
        worker_(worker),
        transport_(transport),
        result_(result),
        num_groups_(engine.options.session.num_groups),
        group_size_(engine.options.session.group_size),
        num_workers_(num_groups_ * group_size_),
        heartbeat_(std::min<std::chrono::milliseconds>(std::chrono::milliseconds(500),
                                                       engine.options.session.timeout / 4)) {}

  void Setup(const std::function<void(const EngineInfo&)>& on_ready);
  void Loop();
  // Ends every open request with a kError event saying `message`.
  void FailOpen(const std::string& message);

 private:
  enum class Reply { kStep, kStats };
  struct Open {
    TokenSink sink;
    Clock::time_point arrival;
    std::optional<Clock::time_point> last_token;
    bool logits = false;  // hand the sink its logits (EngineRequest::logits)
  };

  void Broadcast(const Command& command);
  bool TakeInbox();
  void IssueStep(const Command& command);
  void MaybeGatherStats();
  void TakeReply();
  void Deliver();
  void Publish();
  void WaitForWork();

  Engine::Impl& e_;
  const EngineOptions& options_;
  engine::ServingWorker& worker_;
  runtime::Transport& transport_;
  EngineRunResult& result_;
  const int num_groups_;
  const int group_size_;   // workers of a group (tensor parallelism)
  const int num_workers_;  // of every group
  const std::chrono::milliseconds heartbeat_;
  std::optional<engine::Scheduler> scheduler_;
  std::unordered_map<int64_t, Open> open_;
  std::deque<Reply> replies_;
  std::deque<runtime::Tensor> local_logits_;  // of steps worker 0 ran as the last group
  Clock::time_point start_;
  std::optional<Clock::time_point> first_decode_;
  std::optional<Clock::time_point> last_token_;
  std::optional<std::string> stopping_;  // the shutdown reason, once taken
  // Time with steps in flight, and each group's busy seconds.
  double active_seconds_ = 0;
  std::optional<Clock::time_point> active_since_;
  Clock::time_point last_stats_;
  bool stats_pending_ = false;
  bool steps_since_stats_ = false;
  std::vector<double> busy_;
  int64_t tokens_ = 0;
};

void Controller::Broadcast(const Command& command) {
  if (num_workers_ == 1) return;
  runtime::Tensor encoded = engine::EncodeCommand(command);
  for (int w = 1; w < num_workers_; ++w) transport_.Send(0, w, encoded);
}

void Controller::Setup(const std::function<void(const EngineInfo&)>& on_ready) {
  std::vector<int64_t> bytes =
      engine::CacheBytesPerToken(worker_.ProbeCacheArguments(), num_groups_);
  // Each worker's cache holds its group's layers and its shard's heads.
  const int64_t bytes_per_token = *std::max_element(bytes.begin(), bytes.end());
  engine::ResolvedBudget budget = engine::ResolveKvBudget(
      options_.kv_cache, bytes_per_token, num_workers_, engine::AvailableMemoryBytes());
  Command setup;
  setup.kind = StepKind::kSetup;
  setup.tokens = {options_.max_batch_size, budget.max_total_tokens, options_.prefill_chunk_size};
  Broadcast(setup);
  worker_.CreateCache(
      {options_.max_batch_size, budget.max_total_tokens, options_.prefill_chunk_size});
  EngineInfo info;
  info.num_groups = num_groups_;
  info.batches_in_flight = options_.batches_in_flight;
  info.num_pages = worker_.cache().config().num_pages;
  info.page_size = engine::kPageSize;
  info.max_total_tokens = budget.max_total_tokens;
  info.max_sequence_length = info.num_pages * engine::kPageSize;
  if (options_.context_window_size > 0) {
    info.max_sequence_length = std::min(info.max_sequence_length, options_.context_window_size);
  }
  info.max_batch_size = options_.max_batch_size;
  info.prefill_chunk_size = options_.prefill_chunk_size;
  info.bytes_per_token = bytes_per_token;
  info.bytes_per_group = info.num_pages * engine::kPageSize * bytes_per_token;
  info.budget = budget.phrase;
  engine::SchedulerOptions s;
  s.batches_in_flight = options_.batches_in_flight;
  s.batch_capacity = std::max<int64_t>(
      1, (options_.max_batch_size + options_.batches_in_flight - 1) / options_.batches_in_flight);
  s.prefill_chunk_size = options_.prefill_chunk_size;
  s.num_pages = info.num_pages;
  s.max_sequence_length = info.max_sequence_length;
  s.prefix_cache = options_.prefix_cache;
  scheduler_.emplace(s);
  busy_.assign(static_cast<size_t>(num_workers_), 0.0);
  {
    std::lock_guard lock(e_.mu);
    info.vocab_size = e_.info.vocab_size;
    e_.info = info;
    if (e_.state == Engine::State::kStarting) e_.state = Engine::State::kReady;
  }
  {
    std::lock_guard lock(e_.metrics_mu);
    e_.metrics.ready = true;
    e_.metrics.kv_pages_total = info.num_pages;
    e_.metrics.group_busy_seconds.assign(static_cast<size_t>(num_groups_), 0.0);
  }
  if (on_ready) on_ready(info);
  start_ = Clock::now();
  last_stats_ = start_;
}

// Step 2a; whether the engine is stopping.
bool Controller::TakeInbox() {
  std::vector<Engine::Impl::Pending> pending;
  std::vector<int64_t> cancels;
  bool newly_stopping = false;
  {
    std::lock_guard lock(e_.mu);
    pending.swap(e_.inbox);
    cancels.swap(e_.cancels);
    if (e_.shutdown && !stopping_) {
      stopping_ = *e_.shutdown;
      newly_stopping = true;
    }
  }
  for (Engine::Impl::Pending& p : pending) {
    // Requests submitted before the engine was ready are checked now.
    if (std::optional<SubmitResult> refused = e_.Check(p.request)) {
      TokenEvent event;
      event.finish = FinishReason::kError;
      event.error = refused->message;
      p.sink(event);
      continue;
    }
    engine::ScheduledRequest r;
    r.id = p.id;
    r.prompt = std::move(p.request.prompt);
    r.max_tokens = p.request.max_tokens;
    r.sampling = p.request.sampling;
    r.sample_key = p.request.sample_key.value_or(static_cast<uint64_t>(p.id));
    r.stop_token_ids = std::move(p.request.stop_token_ids);
    const bool logits = p.request.logits;
    scheduler_->Add(std::move(r));
    open_.emplace(p.id, Open{std::move(p.sink), p.arrival, std::nullopt, logits});
  }
  for (int64_t id : cancels) scheduler_->Cancel(id);
  if (newly_stopping) {
    std::vector<int64_t> ids;
    for (const auto& [id, open] : open_) ids.push_back(id);
    std::sort(ids.begin(), ids.end());
    for (int64_t id : ids) scheduler_->Cancel(id, FinishReason::kError);
  }
  Deliver();
  return stopping_.has_value();
}

// Step 2b.
void Controller::IssueStep(const Command& command) {
  Broadcast(command);
  const Clock::time_point now = Clock::now();
  if (scheduler_->last_step_decodes() && !first_decode_) first_decode_ = now;
  if (replies_.empty() && !active_since_) active_since_ = now;
  replies_.push_back(Reply::kStep);
  steps_since_stats_ = true;
  runtime::Tensor logits = worker_.Execute(command);
  if (num_groups_ == 1) local_logits_.push_back(std::move(logits));
}

// Step 2c.
void Controller::MaybeGatherStats() {
  if (!options_.gather_busy_time || num_workers_ == 1 || stats_pending_ || !steps_since_stats_) {
    return;
  }
  // Once a second while steps run, and when they stop.
  const Clock::time_point now = Clock::now();
  if (!replies_.empty() && now - last_stats_ < kStatsInterval) return;
  steps_since_stats_ = false;
  last_stats_ = now;
  Command stats;
  stats.kind = StepKind::kStats;
  Broadcast(stats);
  replies_.push_back(Reply::kStats);
  stats_pending_ = true;
}

// Step 2e.
void Controller::TakeReply() {
  const Reply reply = replies_.front();
  replies_.pop_front();
  if (reply == Reply::kStats) {
    for (int w = 1; w < num_workers_; ++w) {
      runtime::Tensor t = transport_.Recv(0, w, options_.session.timeout);
      if (t.dtype() != DataType::Float(64) || t.numel() != 1) {
        throw runtime::RuntimeError(
            fmt::format("worker {} answered the stats command with {}", w, t.ToString()));
      }
      busy_[w] = t.data<double>()[0];
    }
    stats_pending_ = false;
  } else {
    runtime::Tensor logits;
    if (num_groups_ == 1) {
      logits = std::move(local_logits_.front());
      local_logits_.pop_front();
    } else {  // from the first worker of the last group
      logits = transport_.Recv(0, (num_groups_ - 1) * group_size_, options_.session.timeout);
    }
    scheduler_->Complete(logits);
    Deliver();
  }
  if (replies_.empty() && active_since_) {
    active_seconds_ += Seconds(Clock::now() - *active_since_);
    active_since_.reset();
  }
}

void Controller::Deliver() {
  const std::vector<engine::SchedulerEvent>& events = scheduler_->events();
  if (events.empty()) return;
  const Clock::time_point now = Clock::now();
  const double seconds = Seconds(now - start_);
  {
    std::lock_guard lock(e_.metrics_mu);
    for (const engine::SchedulerEvent& ev : events) {
      Open& open = open_.at(ev.request);
      if (ev.token >= 0) {
        ++e_.metrics.generation_tokens_total;
        if (!open.last_token) {
          e_.metrics.time_to_first_token.Observe(Seconds(now - open.arrival));
        } else {
          e_.metrics.inter_token_latency.Observe(Seconds(now - *open.last_token));
        }
      }
      if (ev.finish != FinishReason::kNone) {
        ++e_.metrics.requests_finished_total;
        if (ev.finish == FinishReason::kCancelled) ++e_.metrics.requests_cancelled_total;
      }
    }
  }
  for (const engine::SchedulerEvent& ev : events) {
    auto it = open_.find(ev.request);
    Open& open = it->second;
    TokenEvent event;
    event.token = ev.token;
    event.finish = ev.finish;
    if (options_.keep_logits || open.logits) event.logits = ev.logits;
    event.seconds = seconds;
    if (ev.finish == FinishReason::kError && stopping_) event.error = *stopping_;
    if (ev.token >= 0) {
      ++tokens_;
      last_token_ = now;
      open.last_token = now;
    }
    open.sink(event);
    if (ev.finish != FinishReason::kNone) open_.erase(it);
  }
  scheduler_->ClearEvents();
}

// Step 2d.
void Controller::Publish() {
  const engine::Scheduler& s = *scheduler_;
  busy_[0] = worker_.busy_seconds();
  {
    std::lock_guard lock(e_.mu);
    e_.waiting = s.num_waiting();
  }
  std::lock_guard lock(e_.metrics_mu);
  EngineMetrics& m = e_.metrics;
  m.requests_running = s.num_running();
  m.requests_waiting = s.num_waiting();
  m.requests_preempted = s.num_preempted_waiting();
  m.preemptions_total = s.preemptions();
  m.kv_pages_used = s.pages_used();
  m.kv_pages_cached = options_.prefix_cache ? s.pages_cached() : 0;
  const engine::PrefixCacheStats prefix = s.prefix_cache_stats();
  m.prefix_cache_queries_total = prefix.lookups;
  m.prefix_cache_hits_total = prefix.hits;
  m.prefix_cache_query_tokens_total = prefix.lookup_tokens;
  m.prefix_cache_hit_tokens_total = prefix.hit_tokens;
  m.prefix_cache_evictions_total = prefix.evictions;
  m.prefix_cache_entries = prefix.entries;
  m.prompt_tokens_total = s.prompt_tokens();
  m.active_seconds =
      active_seconds_ + (active_since_ ? Seconds(Clock::now() - *active_since_) : 0.0);
  if (num_workers_ == 1 || options_.gather_busy_time) {
    // A group's busy time is its first worker's (its workers run in step).
    for (int g = 0; g < num_groups_; ++g) {
      m.group_busy_seconds[g] = busy_[static_cast<size_t>(g) * group_size_];
    }
  }
}

void Controller::WaitForWork() {
  std::unique_lock lock(e_.mu);
  const bool woken = e_.cv.wait_for(lock, heartbeat_, [&] {
    return !e_.inbox.empty() || !e_.cancels.empty() || (e_.shutdown && !stopping_);
  });
  lock.unlock();
  if (!woken) {
    Command heartbeat;
    heartbeat.kind = StepKind::kHeartbeat;
    Broadcast(heartbeat);
  }
}

void Controller::Loop() {
  for (;;) {
    const bool stopping = TakeInbox();  // step 2a
    while (!stopping) {                 // step 2b
      std::optional<Command> command = scheduler_->NextCommand();
      if (!command) break;
      IssueStep(*command);
    }
    MaybeGatherStats();  // step 2c
    Publish();           // step 2d
    if (!replies_.empty()) {
      TakeReply();  // step 2e
      if (options_.progress) options_.progress(tokens_, Seconds(Clock::now() - start_));
      continue;
    }
    if (stopping || (options_.stop_when_idle && scheduler_->Idle())) break;
    WaitForWork();
  }
  const Clock::time_point end = last_token_.value_or(Clock::now());
  result_.seconds = Seconds(end - start_);
  result_.prefill_steps = scheduler_->prefill_steps();
  result_.decode_steps = scheduler_->decode_steps();
  result_.decode_tokens = scheduler_->decode_tokens();
  result_.decode_seconds = first_decode_ ? Seconds(end - *first_decode_) : 0;
  result_.preemptions = scheduler_->preemptions();
  Broadcast(scheduler_->StopCommand());  // step 3
  std::lock_guard lock(e_.mu);
  e_.state = Engine::State::kStopped;
}

void Controller::FailOpen(const std::string& message) {
  for (auto& [id, open] : open_) {
    TokenEvent event;
    event.finish = FinishReason::kError;
    event.error = message;
    open.sink(event);
  }
  open_.clear();
}

}  // namespace

void Engine::Impl::Control(engine::ServingWorker& worker, runtime::Transport& transport,
                           EngineRunResult& result,
                           const std::function<void(const EngineInfo&)>& on_ready) {
  Controller controller(*this, worker, transport, result);
  try {
    controller.Setup(on_ready);  // step 1
    controller.Loop();           // steps 2 and 3
  } catch (const std::exception& error) {
    {
      std::lock_guard lock(mu);
      state = State::kFailed;
    }
    controller.FailOpen(error.what());
    FailInbox(error.what());
    throw;
  }
}

}  // namespace pipesplit::serve
