// The serving scheduler (scheduler.h).
#include "src/serve/engine/scheduler.h"

#include <algorithm>
#include <utility>

#include "pipesplit/support/check.h"
#include "src/serve/engine/sampler.h"

namespace pipesplit::serve::engine {
namespace {

int64_t PagesFor(int64_t tokens) { return (tokens + kPageSize - 1) / kPageSize; }

// The prompt tokens a step may always take, however short the steps in flight.
constexpr int64_t kMinPrefillTokens = 16;

}  // namespace

int32_t Scheduler::Request::TokenAt(int64_t i) const {
  const int64_t p = static_cast<int64_t>(spec.prompt.size());
  return i < p ? spec.prompt[i] : output[i - p];
}

std::vector<int32_t> Scheduler::Request::Tokens(int64_t n) const {
  std::vector<int32_t> tokens;
  tokens.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) tokens.push_back(TokenAt(i));
  return tokens;
}

Scheduler::Scheduler(const SchedulerOptions& options)
    : options_(options),
      watermark_pages_(std::max<int64_t>(1, options.num_pages / 100)),
      batches_(static_cast<size_t>(options.batches_in_flight)),
      pool_(options.num_pages) {
  PS_CHECK(options.batches_in_flight >= 1 && options.batch_capacity >= 1 &&
           options.prefill_chunk_size >= 1);
  PS_CHECK(PagesFor(options.max_sequence_length) <= options.num_pages)
      << "a sequence of " << options.max_sequence_length << " tokens does not fit "
      << options.num_pages << " pages";
}

void Scheduler::Add(ScheduledRequest request) {
  const int64_t id = request.id;
  PS_CHECK(!request.prompt.empty() && request.max_tokens >= 1 &&
           static_cast<int64_t>(request.prompt.size()) + request.max_tokens <=
               options_.max_sequence_length);
  Request r;
  r.spec = std::move(request);
  PS_CHECK(requests_.emplace(id, std::move(r)).second) << "request " << id << " exists";
  waiting_.push_back(id);
}

int64_t Scheduler::num_preempted_waiting() const {
  int64_t n = 0;
  for (int64_t id : waiting_) n += requests_.at(id).preempted;
  return n;
}

void Scheduler::Cancel(int64_t id, FinishReason reason) {
  auto it = requests_.find(id);
  if (it == requests_.end()) return;
  Request& r = it->second;
  if (r.seq < 0) {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), id));
    events_.push_back({id, -1, reason, {}});
    requests_.erase(it);
    return;
  }
  Finish(r, -1, reason, {});
}

int64_t Scheduler::pages_cached() const {
  if (prefix_.size() == 0) return 0;  // no entry holds a page (the common case: no scan)
  std::vector<bool> running(static_cast<size_t>(options_.num_pages), false);
  int64_t held = 0;
  for (const Batch& batch : batches_) {
    for (int64_t id : batch.running) {
      for (int64_t page : requests_.at(id).pages) {
        if (!running[static_cast<size_t>(page)]) ++held;
        running[static_cast<size_t>(page)] = true;
      }
    }
  }
  return pages_used() - held;
}

PrefixCacheStats Scheduler::prefix_cache_stats() const {
  PrefixCacheStats stats = prefix_stats_;
  stats.entries = prefix_.size();
  return stats;
}

void Scheduler::Leave(Request& r, bool keep) {
  PS_CHECK(r.seq >= 0);
  if (keep && options_.prefix_cache && r.computed >= kPageSize) {
    // Every token computed so far is in the caches once the steps in flight are done, and
    // they are done before any step that forks the entry.
    prefix_.Insert({r.seq, r.Tokens(r.computed), std::move(r.pages), 0}, pool_, to_remove_);
  } else {
    to_remove_.push_back(r.seq);
    for (int64_t page : r.pages) pool_.Release(page);
  }
  r.pages.clear();
  reserved_pages_ -= r.reserved;
  std::vector<int64_t>& running = batches_[r.batch].running;
  running.erase(std::find(running.begin(), running.end(), r.spec.id));
  --running_;
  r.seq = -1;
  r.batch = -1;
  r.computed = 0;
  r.reserved = 0;
}

void Scheduler::Finish(Request& r, int32_t token, FinishReason reason,
                       std::span<const float> logits) {
  const int64_t id = r.spec.id;
  if (r.seq >= 0) Leave(r, /*keep=*/reason != FinishReason::kError);
  events_.push_back({id, token, reason, logits});
  requests_.erase(id);
}

void Scheduler::Preempt(Request& r) {
  Leave(r);
  r.preempted = true;
  r.preempted_step = steps_;
  waiting_.push_front(r.spec.id);
  ++preemptions_;
}

bool Scheduler::MakeRoom(int64_t n, const Request& r) {
  while (Available() < n) {
    // Cached prefixes go before any running request.
    if (prefix_.EvictOne(-1, pool_, to_remove_)) {
      ++prefix_stats_.evictions;
      continue;
    }
    Request* youngest = nullptr;
    for (Batch& batch : batches_) {
      for (int64_t id : batch.running) {
        Request& candidate = requests_.at(id);
        if (youngest == nullptr || candidate.admitted > youngest->admitted) youngest = &candidate;
      }
    }
    PS_CHECK(youngest != nullptr) << "no request to preempt for " << n << " pages";
    const bool self = youngest == &r;
    Preempt(*youngest);
    if (self) return false;
  }
  return true;
}

void Scheduler::Feed(Request& r, int64_t n, bool decode, Command& c, Step& step) {
  const int64_t need = PagesFor(r.computed + n) - static_cast<int64_t>(r.pages.size());
  const int64_t from_reserve = std::min(need, r.reserved);
  PS_CHECK(Available() >= need - from_reserve);
  r.reserved -= from_reserve;
  reserved_pages_ -= from_reserve;
  for (int64_t i = 0; i < need; ++i) r.pages.push_back(pool_.Take());
  if (r.fed_step != steps_) r.fed = 0;
  r.fed_step = steps_;
  r.fed += n;
  c.seq_ids.push_back(r.seq);
  c.lengths.push_back(n);
  for (int64_t i = 0; i < n; ++i) c.tokens.push_back(r.TokenAt(r.computed + i));
  r.computed += n;
  step.rows.push_back({r.spec.id, r.seq, r.computed == r.length(), decode});
}

bool Scheduler::Admit(Batch& batch, int b, int64_t& budget, bool& prefilling, bool filling,
                      Command& c, Step& step) {
  if (waiting_.empty() || (budget <= 0 && !filling) ||
      static_cast<int64_t>(batch.running.size()) >= options_.batch_capacity) {
    return false;
  }
  Request& r = requests_.at(waiting_.front());
  if (r.preempted_step == steps_) return false;  // preempted while forming this step
  Match match = FindPrefix(r);
  if (match.wait) return false;
  int64_t need = PagesFor(r.length()) - match.length / kPageSize;
  int64_t pending = r.length() - match.length;
  // It waits for a step of its own, unless the batch is filling (it joins, fed what is left).
  if (pending > budget && prefilling && !filling) return false;
  const int64_t watermark = running_ == 0 ? 0 : watermark_pages_;
  // Evicts cache entries (but `keep`'s) until `need` pages are available beyond the watermark.
  auto make_room = [&](int64_t keep) {
    while (Available() - need < watermark && prefix_.EvictOne(keep, pool_, to_remove_)) {
      ++prefix_stats_.evictions;
    }
    return Available() - need >= watermark;
  };
  if (!make_room(match.cached ? match.seq : -1)) {
    // Only the entry it would fork is left to evict: it is computed whole instead.
    if (!match.cached) return false;
    match = Match{};
    need = PagesFor(r.length());
    pending = r.length();
    if (pending > budget && prefilling && !filling) return false;
    if (!make_room(-1)) return false;
  }
  waiting_.pop_front();
  r.seq = next_seq_++;
  r.batch = b;
  r.admitted = next_admission_++;
  r.reserved = need;
  r.preempted = false;
  reserved_pages_ += need;
  if (!r.joined_once) prompt_tokens_ += static_cast<int64_t>(r.spec.prompt.size());
  r.joined_once = true;
  batch.running.push_back(r.spec.id);
  ++running_;
  if (options_.prefix_cache) {
    ++prefix_stats_.lookups;
    prefix_stats_.lookup_tokens += r.length();
  }
  if (match.length > 0) {
    c.forks.insert(c.forks.end(), {match.seq, r.seq, match.length});
    for (int64_t i = 0; i < match.length / kPageSize; ++i) {
      pool_.Hold((*match.pages)[i]);
      r.pages.push_back((*match.pages)[i]);
    }
    r.computed = match.length;
    if (match.cached) prefix_.Touch(match.seq);
    ++prefix_stats_.hits;
    prefix_stats_.hit_tokens += match.length;
  } else {
    c.add.push_back(r.seq);
  }
  const int64_t n = std::min(pending, std::max<int64_t>(budget, 0));
  if (n > 0) {
    Feed(r, n, /*decode=*/false, c, step);
    budget -= n;
    prefilling = true;
  }
  return true;
}

Scheduler::Match Scheduler::FindPrefix(const Request& r) const {
  Match best;
  if (!options_.prefix_cache || r.length() <= kPageSize) return best;
  const std::vector<int32_t> tokens = r.Tokens(r.length());
  // At least the last token is fed: its logits give the next one.
  const int64_t limit = r.length() - 1;
  if (const PrefixCache::Entry* entry = prefix_.Longest(tokens, limit, kPageSize, &best.length)) {
    best.seq = entry->seq;
    best.pages = &entry->pages;
    best.cached = true;
  }
  int64_t future = best.length;
  for (const Batch& batch : batches_) {
    for (int64_t id : batch.running) {
      const Request& q = requests_.at(id);
      const int64_t n = std::min(q.length(), limit);
      int64_t common = 0;
      while (common < n && q.TokenAt(common) == tokens[static_cast<size_t>(common)]) ++common;
      const int64_t shared = common / kPageSize * kPageSize;
      // Tokens fed in the step being formed are not in the caches before it runs.
      const int64_t computed = q.computed - (q.fed_step == steps_ ? q.fed : 0);
      const int64_t now = std::min(shared, computed / kPageSize * kPageSize);
      if (now > best.length) best = {q.seq, now, &q.pages, false, false};
      future = std::max(future, shared);
    }
  }
  best.wait = future > best.length;
  return best;
}

std::optional<Command> Scheduler::NextCommand() {
  ++steps_;
  const size_t num_batches = batches_.size();
  for (size_t i = 0; i < num_batches; ++i) {
    const size_t b = (next_batch_ + i) % num_batches;
    Batch& batch = batches_[b];
    if (batch.busy) continue;
    Command c;
    c.batch = static_cast<int64_t>(b);
    Step step{static_cast<int>(b), {}};
    // 1. Decode rows, oldest first (preemption may take requests out of the batch).
    const std::vector<int64_t> running = batch.running;
    int64_t decode_rows = 0;
    for (int64_t id : running) {
      auto it = requests_.find(id);
      if (it == requests_.end() || it->second.seq < 0 || it->second.batch != static_cast<int>(b)) {
        continue;
      }
      Request& r = it->second;
      if (r.output.empty() || r.length() - r.computed != 1) continue;
      const int64_t need =
          PagesFor(r.computed + 1) - static_cast<int64_t>(r.pages.size()) - r.reserved;
      if (need > 0 && !MakeRoom(need, r)) continue;
      Feed(r, 1, /*decode=*/true, c, step);
      ++decode_rows;
    }
    // 2. The next chunks of prompts being prefilled.
    int64_t budget = std::max<int64_t>(options_.prefill_chunk_size - decode_rows, 0);
    // Even steps: with steps of other batches in flight, the groups run them one after the
    // other, and a step much longer than the others leaves the next group idle. Unless this
    // batch runs far fewer requests than the others (it refills), prompts take at most what
    // keeps the step within a quarter of the longest in flight (and always kMinPrefillTokens,
    // so that they progress).
    int64_t longest = 0;
    int64_t widest = 0;
    for (const Step& other : in_flight_) {
      longest = std::max(longest, other.tokens);
      widest = std::max(widest, static_cast<int64_t>(other.rows.size()));
    }
    const int64_t mine = static_cast<int64_t>(batch.running.size());
    // Filling the pipeline: a batch that starts from nothing while another step is in flight,
    // or with none in flight while more requests wait than it takes (the next batches start
    // right after it), takes its requests whole but prefills them in chunks growing by a
    // quarter a step, so the groups after the first start soon.
    const bool filling =
        options_.batches_in_flight > 1 && mine == 0 &&
        (!in_flight_.empty() || static_cast<int64_t>(waiting_.size()) > options_.batch_capacity);
    if (!in_flight_.empty() && (mine + mine / 4 >= widest || filling)) {
      budget = std::min(budget, std::max(longest + longest / 4 - decode_rows, kMinPrefillTokens));
    } else if (filling) {
      budget = std::min(budget, std::max(options_.prefill_chunk_size / 4, kMinPrefillTokens));
    }
    bool prefilling = false;
    for (int64_t id : batch.running) {
      Request& r = requests_.at(id);
      const int64_t pending = r.length() - r.computed;
      if (budget <= 0) break;
      if (pending <= 0) continue;  // fed in step 1
      if (std::find_if(step.rows.begin(), step.rows.end(),
                       [&](const Row& row) { return row.request == id; }) != step.rows.end()) {
        continue;
      }
      const int64_t n = std::min(pending, budget);
      Feed(r, n, /*decode=*/false, c, step);
      budget -= n;
      prefilling = true;
    }
    // 3. Waiting requests join.
    while (Admit(batch, static_cast<int>(b), budget, prefilling, filling, c, step)) {
    }
    if (step.rows.empty()) continue;
    const bool all_single =
        std::all_of(c.lengths.begin(), c.lengths.end(), [](int64_t n) { return n == 1; });
    c.kind = all_single ? StepKind::kDecode : StepKind::kPrefill;
    ++(all_single ? decode_steps_ : prefill_steps_);
    last_step_decodes_ = decode_rows > 0;
    step.tokens = static_cast<int64_t>(c.tokens.size());
    c.remove = std::exchange(to_remove_, {});
    batch.busy = true;
    next_batch_ = (b + 1) % num_batches;
    in_flight_.push_back(std::move(step));
    return c;
  }
  return std::nullopt;
}

void Scheduler::Complete(const runtime::Tensor& logits) {
  PS_CHECK(!in_flight_.empty());
  Step step = std::move(in_flight_.front());
  in_flight_.pop_front();
  batches_[step.batch].busy = false;
  const int64_t rows = static_cast<int64_t>(step.rows.size());
  PS_CHECK(logits.ndim() == 2 && logits.shape()[0] == rows);
  const int64_t vocab = logits.shape()[1];
  const float* data = logits.data<float>();
  for (int64_t i = 0; i < rows; ++i) {
    const Row& row = step.rows[i];
    if (!row.sample) continue;
    auto it = requests_.find(row.request);
    // Preempted, cancelled or finished since the step was issued: its row is stale.
    if (it == requests_.end() || it->second.seq != row.seq) continue;
    Request& r = it->second;
    std::span<const float> values(data + i * vocab, static_cast<size_t>(vocab));
    const int64_t index = static_cast<int64_t>(r.output.size());
    const int32_t token =
        SampleToken(values, r.spec.sampling, static_cast<int64_t>(r.spec.sample_key), index);
    r.output.push_back(token);
    if (row.decode) ++decode_tokens_;
    const std::vector<int32_t>& stops = r.spec.stop_token_ids;
    if (std::find(stops.begin(), stops.end(), token) != stops.end()) {
      Finish(r, token, FinishReason::kStop, values);
    } else if (static_cast<int64_t>(r.output.size()) >= r.spec.max_tokens) {
      Finish(r, token, FinishReason::kLength, values);
    } else {
      events_.push_back({row.request, token, FinishReason::kNone, values});
    }
  }
}

Command Scheduler::StopCommand() {
  PS_CHECK(in_flight_.empty());
  for (Batch& batch : batches_) {
    const std::vector<int64_t> running = batch.running;
    for (int64_t id : running) Leave(requests_.at(id));
  }
  prefix_.Clear(pool_, to_remove_);
  Command c;
  c.kind = StepKind::kStop;
  c.remove = std::exchange(to_remove_, {});
  return c;
}

}  // namespace pipesplit::serve::engine
