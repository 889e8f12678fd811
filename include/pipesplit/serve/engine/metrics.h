// What the serving engine counts (engine.h): request states, KV pages, tokens, latencies and
// each group's busy time. The HTTP layer prints it in Prometheus' text format.
#ifndef PIPESPLIT_RUNTIME_SERVE_METRICS_H_
#define PIPESPLIT_RUNTIME_SERVE_METRICS_H_

#include <cstdint>
#include <vector>

namespace pipesplit::serve {

// A histogram with fixed upper bounds (Prometheus' `le`): counts[i] observations were at most
// bounds[i] and above bounds[i - 1]; the last count is above every bound (+Inf).
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds = {});
  void Observe(double value);
  const std::vector<double>& bounds() const { return bounds_; }
  const std::vector<uint64_t>& counts() const { return counts_; }  // bounds().size() + 1
  double sum() const { return sum_; }
  uint64_t count() const { return count_; }
  // The value below which `q` (in [0, 1]) of the observations fall, interpolated linearly in
  // its bucket (as Prometheus' histogram_quantile); 0 without observations.
  double Quantile(double q) const;

 private:
  std::vector<double> bounds_;
  std::vector<uint64_t> counts_;
  double sum_ = 0;
  uint64_t count_ = 0;
};

// Bounds for latencies in seconds: 1 ms to 60 s.
std::vector<double> LatencyBuckets();

struct EngineMetrics {
  bool ready = false;  // the caches are made and requests are served
  int64_t requests_running = 0;
  int64_t requests_waiting = 0;    // including preempted ones
  int64_t requests_preempted = 0;  // waiting now after a preemption
  int64_t preemptions_total = 0;
  int64_t requests_finished_total = 0;  // every reason
  int64_t requests_cancelled_total = 0;
  int64_t kv_pages_total = 0;
  int64_t kv_pages_used = 0;
  int64_t kv_pages_cached = 0;  // of them, pages only prefix cache entries hold
  // The prefix cache: requests that joined a batch and tokens of their sequences; of them,
  // those that forked a cached or running sequence and the tokens forked; entries evicted for
  // pages; entries kept now.
  int64_t prefix_cache_queries_total = 0;
  int64_t prefix_cache_hits_total = 0;
  int64_t prefix_cache_query_tokens_total = 0;
  int64_t prefix_cache_hit_tokens_total = 0;
  int64_t prefix_cache_evictions_total = 0;
  int64_t prefix_cache_entries = 0;
  int64_t prompt_tokens_total = 0;  // of requests that joined a batch (once each)
  int64_t generation_tokens_total = 0;
  Histogram time_to_first_token{LatencyBuckets()};  // from Submit to the first token
  Histogram inter_token_latency{LatencyBuckets()};  // between a request's tokens
  // Seconds during which steps were in flight, and each group's busy seconds within them
  // (gathered once a second with gather_busy_time): the bubble fraction of group g is
  // 1 - group_busy_seconds[g] / active_seconds.
  double active_seconds = 0;
  std::vector<double> group_busy_seconds;
};

}  // namespace pipesplit::serve

#endif  // PIPESPLIT_RUNTIME_SERVE_METRICS_H_
