// The serving engine's metrics (serve/metrics.h) in Prometheus' text exposition format, every
// name prefixed "pipesplit:" (as vLLM prefixes "vllm:").
#ifndef PIPESPLIT_SRC_RUNTIME_HTTP_PROMETHEUS_H_
#define PIPESPLIT_SRC_RUNTIME_HTTP_PROMETHEUS_H_

#include <string>

#include "pipesplit/serve/engine/engine.h"
#include "pipesplit/serve/engine/metrics.h"

namespace pipesplit::serve::http {

// The metric names, one place for each.
namespace metric {
inline constexpr const char kRequestsRunning[] = "pipesplit:num_requests_running";
inline constexpr const char kRequestsWaiting[] = "pipesplit:num_requests_waiting";
inline constexpr const char kRequestsPreempted[] = "pipesplit:num_requests_preempted";
inline constexpr const char kPreemptions[] = "pipesplit:num_preemptions_total";
inline constexpr const char kRequestsFinished[] = "pipesplit:requests_finished_total";
inline constexpr const char kRequestsCancelled[] = "pipesplit:requests_cancelled_total";
inline constexpr const char kPagesTotal[] = "pipesplit:kv_cache_pages_total";
inline constexpr const char kPagesUsed[] = "pipesplit:kv_cache_pages_used";
inline constexpr const char kPagesFree[] = "pipesplit:kv_cache_pages_free";
inline constexpr const char kPagesCached[] = "pipesplit:kv_cache_pages_cached";
inline constexpr const char kPrefixQueries[] = "pipesplit:prefix_cache_queries_total";
inline constexpr const char kPrefixHits[] = "pipesplit:prefix_cache_hits_total";
inline constexpr const char kPrefixQueryTokens[] = "pipesplit:prefix_cache_query_tokens_total";
inline constexpr const char kPrefixHitTokens[] = "pipesplit:prefix_cache_hit_tokens_total";
inline constexpr const char kPrefixEvictions[] = "pipesplit:prefix_cache_evictions_total";
inline constexpr const char kPrefixEntries[] = "pipesplit:prefix_cache_entries";
inline constexpr const char kPromptTokens[] = "pipesplit:prompt_tokens_total";
inline constexpr const char kGenerationTokens[] = "pipesplit:generation_tokens_total";
inline constexpr const char kTimeToFirstToken[] = "pipesplit:time_to_first_token_seconds";
inline constexpr const char kInterTokenLatency[] = "pipesplit:inter_token_latency_seconds";
inline constexpr const char kActiveSeconds[] = "pipesplit:active_seconds_total";
inline constexpr const char kGroupBusySeconds[] = "pipesplit:group_busy_seconds_total";
inline constexpr const char kBubbleFraction[] = "pipesplit:bubble_fraction";
}  // namespace metric

// Every metric, labelled with model_name (and group for the per-group ones).
std::string PrometheusText(const EngineMetrics& metrics, const std::string& model_name);

}  // namespace pipesplit::serve::http

#endif  // PIPESPLIT_SRC_RUNTIME_HTTP_PROMETHEUS_H_
