// The paged attention KV cache of MLC-LLM serving modules, as CPU reference builtins: the
// vm.builtin.paged_attention_kv_cache_create object and the kv_state_* /
// attention_kv_cache_* builtins the engine and the model call on it (docs:
// shared/spec/mlc-serving.md, sections 2 and 3).
//
// The cache holds, for each layer of this worker's group, pages of `page_size` token slots
// with one K and one V row per KV head and slot. Sequences are lists of page ids; a fork
// shares the parent's full pages (reference counted) and copies a partially filled page, so
// the last page of a sequence that is not page aligned is always its own. Pages come from a
// free list: a page is free again when no sequence refers to it.
//
// A forward is bracketed by BeginForward (which checks the batch, reserves the pages and
// advances the sequence lengths) and EndForward. In between, each layer's attention call takes
// the fused [q heads | k heads | v heads] rows of the batch (sequences in BeginForward's
// order, each sequence's new tokens contiguous), rotates q and k by RoPE at each token's
// position (NeoX rotate-half, when the rope mode is normal), stores the rotated k and v in the
// sequence's slots, and computes causal attention of each new token over the sequence's
// tokens up to its position (GQA: q head h reads kv head h / (h_q / h_kv)) with softmax in
// float32. Stored values and outputs have the cache dtype (float16, bfloat16 or float32).
//
// Layer partition: a worker of group g holds layers [layer_partition[g], layer_partition[g+1])
// only; attention calls name global layer ids. The sequence bookkeeping is the same on every
// worker (the engine sends each call to all of them).
//
// Like KvCache, a PagedKvCache is an R.Object value holding shared mutable state: every copy
// of the value sees every change. User errors are RuntimeErrors ("kv cache is full: ...").
#ifndef PIPESPLIT_RUNTIME_EXEC_PAGED_KV_CACHE_H_
#define PIPESPLIT_RUNTIME_EXEC_PAGED_KV_CACHE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pipesplit/runtime/exec/builtins.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

// The builtin names (TVM's src/runtime/vm/kv_state.cc and paged_kv_cache.cc).
namespace paged_kv {
inline constexpr const char kCreate[] = "vm.builtin.paged_attention_kv_cache_create";
inline constexpr const char kAddSequence[] = "vm.builtin.kv_state_add_sequence";
inline constexpr const char kRemoveSequence[] = "vm.builtin.kv_state_remove_sequence";
inline constexpr const char kForkSequence[] = "vm.builtin.kv_state_fork_sequence";
inline constexpr const char kPopN[] = "vm.builtin.kv_state_popn";
inline constexpr const char kClear[] = "vm.builtin.kv_state_clear";
inline constexpr const char kBeginForward[] = "vm.builtin.kv_state_begin_forward";
inline constexpr const char kEndForward[] = "vm.builtin.kv_state_end_forward";
inline constexpr const char kAttentionWithFusedQkv[] =
    "vm.builtin.attention_kv_cache_attention_with_fused_qkv";
inline constexpr const char kGetNumAvailablePages[] =
    "vm.builtin.attention_kv_cache_get_num_available_pages";
inline constexpr const char kGetTotalSequenceLength[] =
    "vm.builtin.attention_kv_cache_get_total_sequence_length";
}  // namespace paged_kv

// TVM's RoPEMode numbering (the create call's argument 8). kInline (rotation inside the
// attention kernels) is not supported.
enum class RopeMode : int64_t { kNone = 0, kNormal = 1, kInline = 2 };

struct PagedKvCacheConfig {
  int64_t page_size = 16;  // token slots per page (MLC's kernels are built for 16)
  int64_t num_pages = 0;   // pages of the cache (for each held layer)
  int64_t num_layers = 0;  // layers of the whole model
  // The layers this worker holds: [layer_begin, layer_end) of [0, num_layers).
  int64_t layer_begin = 0;
  int64_t layer_end = 0;
  int64_t num_qo_heads = 0;
  int64_t num_kv_heads = 0;  // divides num_qo_heads
  int64_t head_dim = 0;      // of q, k and v (even when RoPE is applied)
  RopeMode rope_mode = RopeMode::kNormal;
  double rope_scale = 1;  // positions are multiplied by it
  double rope_theta = 10000;
  // Llama 3's RoPE frequencies (rope_scaling "llama3"): each inverse frequency f = 1 / theta^(2j/d)
  // becomes (1 - s) f / factor + s f, s = clamp(alpha f - beta, 0, 1) with alpha =
  // original_max_position_embeddings / (2 pi (high - low)) and beta = low / (high - low), and a
  // position's angle is pos * f (TVM's rope_freq_llama3, in float32). factor 0: plain RoPE.
  // MLC's compiled modules carry these frequencies inside their attention kernels; the module
  // pipesplit writes for a folder passes rope_scaling's JSON as the argument MLC uses for
  // rope ext factors.
  struct Llama3Rope {
    double factor = 0;
    double low_freq_factor = 1;
    double high_freq_factor = 4;
    double original_max_position_embeddings = 8192;
  } llama3;
  DataType dtype = DataType::Float(32);  // float16, bfloat16 or float32
};

// The worker group a cache is created for: its layers are the group's slice of the
// layer_partition argument, which must have num_groups + 1 entries (one group: any partition,
// the group holds all of its layers, as an unsplit run of a staged module needs).
struct PagedKvCacheGroup {
  int group_id = 0;
  int num_groups = 1;
};

class PagedKvCache : public Object {
 public:
  // Throws RuntimeError for an invalid config (non-positive sizes, heads that do not divide,
  // an odd head_dim with RoPE, an unsupported dtype or rope mode, a bad layer range).
  static std::shared_ptr<PagedKvCache> Create(const PagedKvCacheConfig& config);
  ~PagedKvCache() override;

  std::string TypeName() const override { return "paged_kv_cache"; }
  const PagedKvCacheConfig& config() const;

  // Sequence management (the methods mutate the shared state; const like KvCache's). Every one
  // but Clear is an error during a forward, an unknown id an error, an existing child id an
  // error.
  void AddSequence(int64_t seq_id) const;
  void RemoveSequence(int64_t seq_id) const;
  // The child holds the parent's first `fork_pos` tokens (-1: all of them).
  void ForkSequence(int64_t parent_id, int64_t child_id, int64_t fork_pos = -1) const;
  // Drops the last `n` tokens (0 <= n <= length).
  void PopN(int64_t seq_id, int64_t n) const;
  // Drops every sequence and any forward in progress.
  void Clear() const;

  // Starts a forward of the sequences `seq_ids` (distinct, existing) appending
  // `append_lengths[i] >= 1` tokens to sequence i: reserves their pages (all or none; "kv cache
  // is full" when too few are free) and advances their lengths.
  void BeginForward(std::span<const int64_t> seq_ids,
                    std::span<const int64_t> append_lengths) const;
  void EndForward() const;
  bool InForward() const;

  // Attention of global layer `layer_id` for the current forward: `qkv` is
  // [n, num_qo_heads + 2 * num_kv_heads, head_dim] of the cache dtype with n at least the
  // forward's token count (rows past it are ignored); `out` is [n, num_qo_heads, head_dim] of
  // the cache dtype (rows past the token count are left as they are).
  void AttentionWithFusedQkv(int64_t layer_id, double sm_scale, const Tensor& qkv,
                             TensorBuilder& out) const;
  // The same with a fresh output.
  Tensor AttentionWithFusedQkv(int64_t layer_id, double sm_scale, const Tensor& qkv) const;

  int64_t NumAvailablePages() const;
  // The sum of the sequence lengths (including the tokens of a forward in progress).
  int64_t TotalSequenceLength() const;
  // RuntimeError for an unknown id.
  int64_t SequenceLength(int64_t seq_id) const;
  bool HasSequence(int64_t seq_id) const;

 private:
  struct State;
  explicit PagedKvCache(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// The config of vm.builtin.paged_attention_kv_cache_create's arguments as MLC passes them
// (28 or 29; mlc-serving.md 2.3): [0] the shape (max_batch_size, max_total_seq_len,
// prefill_chunk_size, page_size, support_sliding_window[, sliding_window_size]), [1] the
// layer_partition shape, [2..5] num_qo_heads, num_kv_heads, qk_head_dim, v_head_dim, [6] the
// attention kind of each layer (all MHA), [7] enable_disaggregation (0), [8..10] rope mode,
// scale and theta, [11] rope_ext_factors (none), [12] a tensor of the cache dtype; the TIR
// kernels after it are ignored. The page count is ceil(max_total_seq_len / page_size) + 1.
// RuntimeError for anything else (sliding windows, MLA, disaggregation, longrope factors, a
// partition without num_groups + 1 entries).
PagedKvCacheConfig PagedKvCacheConfigFromArgs(const std::vector<Value>& args,
                                              PagedKvCacheGroup group);

// Registers the builtins of `paged_kv`; caches created through them hold `group`'s layers.
// RegisterCoreBuiltins registers them for group 0 of 1; a worker of another group registers
// them again with its group.
void RegisterPagedKvCacheBuiltins(BuiltinRegistry* registry, PagedKvCacheGroup group = {});

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_PAGED_KV_CACHE_H_
