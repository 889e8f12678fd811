// Prometheus text of the engine's metrics (prometheus.h).
#include "src/serve/http/prometheus.h"

#include <fmt/format.h>

#include <algorithm>

namespace pipesplit::serve::http {
namespace {

class Writer {
 public:
  explicit Writer(const std::string& model) : labels_(fmt::format("model_name=\"{}\"", model)) {}

  void Scalar(const char* name, const char* type, const char* help, double value) {
    Header(name, type, help);
    out_ += fmt::format("{}{{{}}} {}\n", name, labels_, value);
  }
  void PerGroup(const char* name, const char* type, const char* help,
                const std::vector<double>& values) {
    Header(name, type, help);
    for (size_t g = 0; g < values.size(); ++g) {
      out_ += fmt::format("{}{{{},group=\"{}\"}} {}\n", name, labels_, g, values[g]);
    }
  }
  void Histo(const char* name, const char* help, const Histogram& h) {
    Header(name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.bounds().size(); ++i) {
      cumulative += h.counts()[i];
      out_ +=
          fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, labels_, h.bounds()[i], cumulative);
    }
    out_ += fmt::format("{}_bucket{{{},le=\"+Inf\"}} {}\n", name, labels_, h.count());
    out_ += fmt::format("{}_sum{{{}}} {}\n", name, labels_, h.sum());
    out_ += fmt::format("{}_count{{{}}} {}\n", name, labels_, h.count());
  }
  std::string Take() { return std::move(out_); }

 private:
  void Header(const char* name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  std::string labels_;
  std::string out_;
};

}  // namespace

std::string PrometheusText(const EngineMetrics& m, const std::string& model_name) {
  Writer w(model_name);
  auto d = [](int64_t v) { return static_cast<double>(v); };
  w.Scalar(metric::kRequestsRunning, "gauge", "Requests in a batch (prefilling or decoding).",
           d(m.requests_running));
  w.Scalar(metric::kRequestsWaiting, "gauge",
           "Requests waiting for KV pages or batch room, preempted ones included.",
           d(m.requests_waiting));
  w.Scalar(metric::kRequestsPreempted, "gauge", "Waiting requests that were preempted.",
           d(m.requests_preempted));
  w.Scalar(metric::kPreemptions, "counter",
           "Preemptions: running requests whose pages were freed, to be recomputed.",
           d(m.preemptions_total));
  w.Scalar(metric::kRequestsFinished, "counter", "Requests that ended, for any reason.",
           d(m.requests_finished_total));
  w.Scalar(metric::kRequestsCancelled, "counter", "Requests cancelled (their client went away).",
           d(m.requests_cancelled_total));
  w.Scalar(metric::kPagesTotal, "gauge", "KV cache pages of each group (16 tokens each).",
           d(m.kv_pages_total));
  w.Scalar(metric::kPagesUsed, "gauge", "KV cache pages holding tokens.", d(m.kv_pages_used));
  w.Scalar(metric::kPagesFree, "gauge", "KV cache pages free.",
           d(m.kv_pages_total - m.kv_pages_used));
  w.Scalar(metric::kPagesCached, "gauge",
           "KV cache pages only the prefix cache holds (evicted before any request is preempted).",
           d(m.kv_pages_cached));
  w.Scalar(metric::kPrefixQueries, "counter",
           "Requests that looked up the prefix cache as they joined a batch.",
           d(m.prefix_cache_queries_total));
  w.Scalar(metric::kPrefixHits, "counter",
           "Requests that forked a cached or running sequence's prefix.",
           d(m.prefix_cache_hits_total));
  w.Scalar(metric::kPrefixQueryTokens, "counter", "Tokens of the sequences looked up.",
           d(m.prefix_cache_query_tokens_total));
  w.Scalar(metric::kPrefixHitTokens, "counter",
           "Tokens forked from the prefix cache instead of computed.",
           d(m.prefix_cache_hit_tokens_total));
  w.Scalar(metric::kPrefixEvictions, "counter", "Prefix cache entries evicted for pages.",
           d(m.prefix_cache_evictions_total));
  w.Scalar(metric::kPrefixEntries, "gauge", "Sequences the prefix cache keeps.",
           d(m.prefix_cache_entries));
  w.Scalar(metric::kPromptTokens, "counter", "Prompt tokens of requests that joined a batch.",
           d(m.prompt_tokens_total));
  w.Scalar(metric::kGenerationTokens, "counter", "Tokens generated.", d(m.generation_tokens_total));
  w.Histo(metric::kTimeToFirstToken, "Seconds from a request's arrival to its first token.",
          m.time_to_first_token);
  w.Histo(metric::kInterTokenLatency, "Seconds between a request's consecutive tokens.",
          m.inter_token_latency);
  w.Scalar(metric::kActiveSeconds, "counter", "Seconds during which steps were in flight.",
           m.active_seconds);
  w.PerGroup(metric::kGroupBusySeconds, "counter",
             "Seconds each pipeline group computed (waits for its neighbours excluded).",
             m.group_busy_seconds);
  std::vector<double> bubbles;
  for (double busy : m.group_busy_seconds) {
    bubbles.push_back(m.active_seconds > 0 ? std::clamp(1.0 - busy / m.active_seconds, 0.0, 1.0)
                                           : 0.0);
  }
  w.PerGroup(metric::kBubbleFraction, "gauge",
             "The share of the active time each pipeline group was idle.", bubbles);
  return w.Take();
}

}  // namespace pipesplit::serve::http
