// The paged KV cache object (paged_kv_cache.h): pages, sequences, forwards and the reference
// attention with RoPE. The builtins around it are in paged_kv_cache_builtins.cc.
#include "pipesplit/runtime/exec/paged_kv_cache.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "pipesplit/runtime/tensor/half.h"
#include "pipesplit/support/check.h"
#include "src/runtime/kernels/parallel.h"

namespace pipesplit::runtime {
namespace {

// How the cache dtype is stored.
enum class Storage { kF32, kF16, kBF16 };

float Load(Storage storage, const std::byte* base, int64_t index) {
  if (storage == Storage::kF32) {
    float value;
    std::memcpy(&value, base + index * 4, 4);
    return value;
  }
  uint16_t bits;
  std::memcpy(&bits, base + index * 2, 2);
  return storage == Storage::kF16 ? HalfBitsToFloat(bits) : BFloat16BitsToFloat(bits);
}

void Store(Storage storage, std::byte* base, int64_t index, float value) {
  if (storage == Storage::kF32) {
    std::memcpy(base + index * 4, &value, 4);
    return;
  }
  const uint16_t bits =
      storage == Storage::kF16 ? FloatToHalfBits(value) : FloatToBFloat16Bits(value);
  std::memcpy(base + index * 2, &bits, 2);
}

// `value` rounded to the cache dtype.
float Round(Storage storage, float value) {
  switch (storage) {
    case Storage::kF32:
      return value;
    case Storage::kF16:
      return HalfBitsToFloat(FloatToHalfBits(value));
    case Storage::kBF16:
      return BFloat16BitsToFloat(FloatToBFloat16Bits(value));
  }
  return value;
}

std::string Id(int64_t seq_id) { return std::to_string(seq_id); }

struct Sequence {
  std::vector<int64_t> pages;  // ceil(length / page_size) of them
  int64_t length = 0;
};

// One sequence of the current forward.
struct BatchEntry {
  int64_t seq_id;
  int64_t start;      // its length before the forward
  int64_t length;     // tokens appended
  int64_t first_row;  // of the qkv rows
};

}  // namespace

struct PagedKvCache::State {
  std::mutex mutex;
  PagedKvCacheConfig config;
  Storage storage = Storage::kF32;
  int64_t elem_bytes = 4;
  // One page array per held layer, left uninitialized: a slot is always written before it is
  // read, so the memory of pages never used is never touched (and, for large caches, never
  // committed by the system).
  std::vector<std::unique_ptr<std::byte[]>> layers;
  std::vector<float> rope_divisor;   // theta^(2j / head_dim) for j < head_dim / 2
  std::vector<float> rope_inv_freq;  // llama3 rope scaling: the inverse frequencies (else empty)
  std::vector<int32_t> refs;         // sequences referring to each page
  std::vector<int64_t> free_pages;   // popped from the back; page 0 first
  std::map<int64_t, Sequence> sequences;
  bool in_forward = false;
  std::vector<BatchEntry> batch;
  int64_t batch_tokens = 0;

  int64_t PagesFor(int64_t length) const {
    return (length + config.page_size - 1) / config.page_size;
  }
  // Element offset of the head_dim row of K (kv = 0) or V (kv = 1) for a page, head and slot.
  int64_t Offset(int64_t page, int kv, int64_t head, int64_t slot) const {
    return (((page * 2 + kv) * config.num_kv_heads + head) * config.page_size + slot) *
           config.head_dim;
  }

  void ResetPages() {
    refs.assign(config.num_pages, 0);
    free_pages.clear();
    for (int64_t p = config.num_pages - 1; p >= 0; --p) free_pages.push_back(p);
  }
  int64_t TakePage() {
    PS_CHECK(!free_pages.empty());
    const int64_t page = free_pages.back();
    free_pages.pop_back();
    PS_CHECK(refs[page] == 0);
    refs[page] = 1;
    return page;
  }
  void ReleasePage(int64_t page) {
    PS_CHECK(refs[page] > 0);
    if (--refs[page] == 0) free_pages.push_back(page);
  }
  // Copies the first `count` slots of page `src` to page `dst` in every held layer.
  void CopySlots(int64_t src, int64_t dst, int64_t count) {
    const size_t bytes = static_cast<size_t>(count * config.head_dim * elem_bytes);
    for (std::unique_ptr<std::byte[]>& layer : layers) {
      for (int kv = 0; kv < 2; ++kv) {
        for (int64_t h = 0; h < config.num_kv_heads; ++h) {
          std::memcpy(layer.get() + Offset(dst, kv, h, 0) * elem_bytes,
                      layer.get() + Offset(src, kv, h, 0) * elem_bytes, bytes);
        }
      }
    }
  }

  Sequence& Find(int64_t seq_id) {
    auto it = sequences.find(seq_id);
    if (it == sequences.end()) throw RuntimeError("unknown sequence id " + Id(seq_id));
    return it->second;
  }
  void CheckNew(int64_t seq_id) const {
    if (sequences.count(seq_id) != 0) {
      throw RuntimeError("sequence id " + Id(seq_id) + " already exists");
    }
  }
  void CheckNoForward(const char* what) const {
    if (in_forward) {
      throw RuntimeError(std::string(what) +
                         " during a forward: sequences cannot change between begin_forward and "
                         "end_forward");
    }
  }
  [[noreturn]] void ThrowFull(int64_t needed) const {
    throw RuntimeError("kv cache is full: " + std::to_string(needed) +
                       " more pages are needed but " + std::to_string(free_pages.size()) + " of " +
                       std::to_string(config.num_pages) + " are free");
  }

  // Rotates the head_dim values of `x` to position `pos` (NeoX rotate-half), in place.
  void Rotate(std::vector<float>& x, int64_t pos) const {
    const int64_t half = config.head_dim / 2;
    std::vector<float> rotated(x.size());
    const float scaled = static_cast<float>(static_cast<double>(pos) * config.rope_scale);
    for (int64_t d = 0; d < config.head_dim; ++d) {
      const float freq = rope_inv_freq.empty() ? scaled / rope_divisor[d % half]
                                               : scaled * rope_inv_freq[d % half];
      const float c = Round(storage, std::cos(freq));
      const float s = Round(storage, std::sin(freq));
      const float other = d < half ? -x[d + half] : x[d - half];
      rotated[d] = c * x[d] + s * other;
    }
    x.swap(rotated);
  }

  // Head `head` of row `row` of qkv as floats, rotated to `pos` when `rotate`, rounded to the
  // cache dtype.
  std::vector<float> ReadHead(const std::byte* qkv, int64_t row, int64_t head, int64_t pos,
                              bool rotate) const {
    const int64_t heads = config.num_qo_heads + 2 * config.num_kv_heads;
    const int64_t base = (row * heads + head) * config.head_dim;
    std::vector<float> x(config.head_dim);
    for (int64_t d = 0; d < config.head_dim; ++d) x[d] = Load(storage, qkv, base + d);
    if (rotate && config.rope_mode == RopeMode::kNormal) {
      Rotate(x, pos);
      for (float& v : x) v = Round(storage, v);
    }
    return x;
  }
};

PagedKvCache::PagedKvCache(std::unique_ptr<State> state) : state_(std::move(state)) {}
PagedKvCache::~PagedKvCache() = default;

std::shared_ptr<PagedKvCache> PagedKvCache::Create(const PagedKvCacheConfig& config) {
  auto positive = [](int64_t value, const char* what) {
    if (value <= 0) {
      throw RuntimeError(std::string("paged kv cache: ") + what + " must be positive, got " +
                         std::to_string(value));
    }
  };
  positive(config.page_size, "the page size");
  positive(config.num_pages, "the page count");
  positive(config.num_layers, "the layer count");
  positive(config.num_qo_heads, "the number of query heads");
  positive(config.num_kv_heads, "the number of kv heads");
  positive(config.head_dim, "the head dim");
  if (config.layer_begin < 0 || config.layer_begin > config.layer_end ||
      config.layer_end > config.num_layers) {
    throw RuntimeError("paged kv cache: the held layers [" + std::to_string(config.layer_begin) +
                       ", " + std::to_string(config.layer_end) + ") are not within the " +
                       std::to_string(config.num_layers) + " layers of the model");
  }
  if (config.num_qo_heads % config.num_kv_heads != 0) {
    throw RuntimeError("paged kv cache: the " + std::to_string(config.num_qo_heads) +
                       " query heads are not a multiple of the " +
                       std::to_string(config.num_kv_heads) + " kv heads");
  }
  if (config.rope_mode != RopeMode::kNone && config.rope_mode != RopeMode::kNormal) {
    throw RuntimeError("paged kv cache: rope mode " +
                       std::to_string(static_cast<int64_t>(config.rope_mode)) +
                       " is not supported (only 0, none, and 1, normal)");
  }
  if (config.rope_mode == RopeMode::kNormal) {
    if (config.head_dim % 2 != 0) {
      throw RuntimeError("paged kv cache: rope needs an even head dim, got " +
                         std::to_string(config.head_dim));
    }
    if (!(config.rope_theta > 0)) {
      throw RuntimeError("paged kv cache: rope theta must be positive, got " +
                         std::to_string(config.rope_theta));
    }
  }
  auto state = std::make_unique<State>();
  if (config.dtype == DataType::Float(32)) {
    state->storage = Storage::kF32;
  } else if (config.dtype == DataType::Float(16)) {
    state->storage = Storage::kF16;
  } else if (config.dtype == DataType::BFloat16()) {
    state->storage = Storage::kBF16;
  } else {
    throw RuntimeError("paged kv cache: unsupported dtype " + config.dtype.ToString() +
                       " (float16, bfloat16 or float32)");
  }
  state->config = config;
  state->elem_bytes = config.dtype.bytes();
  const Shape pages{config.num_pages, 2, config.num_kv_heads, config.page_size, config.head_dim};
  const int64_t layer_bytes = ShapeNumel(pages, "paged kv cache") * state->elem_bytes;
  for (int64_t l = config.layer_begin; l < config.layer_end; ++l) {
    state->layers.push_back(
        std::make_unique_for_overwrite<std::byte[]>(static_cast<size_t>(layer_bytes)));
  }
  if (config.rope_mode == RopeMode::kNormal) {
    const int64_t half = config.head_dim / 2;
    for (int64_t j = 0; j < half; ++j) {
      state->rope_divisor.push_back(
          std::pow(static_cast<float>(config.rope_theta),
                   static_cast<float>(2 * j) / static_cast<float>(config.head_dim)));
    }
    if (const PagedKvCacheConfig::Llama3Rope& r = config.llama3; r.factor > 0) {
      // TVM's rope_freq_llama3, in float32.
      const double inv_diff = 1.0 / (r.high_freq_factor - r.low_freq_factor);
      const auto alpha = static_cast<float>(r.original_max_position_embeddings /
                                            (2 * 3.14159265358979323846) * inv_diff);
      const auto beta = static_cast<float>(r.low_freq_factor * inv_diff);
      const auto inv_factor = static_cast<float>(1.0 / r.factor);
      for (float divisor : state->rope_divisor) {
        const float freq = 1.0f / divisor;
        const float smooth = std::max(0.0f, std::min(1.0f, alpha * freq - beta));
        state->rope_inv_freq.push_back((1.0f - smooth) * freq * inv_factor + smooth * freq);
      }
    }
  }
  state->ResetPages();
  return std::shared_ptr<PagedKvCache>(new PagedKvCache(std::move(state)));
}

const PagedKvCacheConfig& PagedKvCache::config() const { return state_->config; }

void PagedKvCache::AddSequence(int64_t seq_id) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.CheckNoForward("add_sequence");
  s.CheckNew(seq_id);
  s.sequences.emplace(seq_id, Sequence{});
}

void PagedKvCache::RemoveSequence(int64_t seq_id) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.CheckNoForward("remove_sequence");
  Sequence& seq = s.Find(seq_id);
  for (int64_t page : seq.pages) s.ReleasePage(page);
  s.sequences.erase(seq_id);
}

void PagedKvCache::ForkSequence(int64_t parent_id, int64_t child_id, int64_t fork_pos) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.CheckNoForward("fork_sequence");
  const Sequence& parent = s.Find(parent_id);
  s.CheckNew(child_id);
  if (fork_pos < -1 || fork_pos > parent.length) {
    throw RuntimeError("fork position " + std::to_string(fork_pos) + " is outside [-1, " +
                       std::to_string(parent.length) + "] for sequence " + Id(parent_id) +
                       " of length " + std::to_string(parent.length));
  }
  if (fork_pos == -1) fork_pos = parent.length;
  const int64_t full = fork_pos / s.config.page_size;
  const int64_t partial = fork_pos % s.config.page_size;
  if (partial != 0 && s.free_pages.empty()) s.ThrowFull(1);
  Sequence child;
  child.length = fork_pos;
  for (int64_t i = 0; i < full; ++i) {
    child.pages.push_back(parent.pages[i]);
    ++s.refs[parent.pages[i]];
  }
  if (partial != 0) {
    // The child gets its own copy of the partly shared page, so it can append to it.
    const int64_t page = s.TakePage();
    s.CopySlots(parent.pages[full], page, partial);
    child.pages.push_back(page);
  }
  s.sequences.emplace(child_id, std::move(child));
}

void PagedKvCache::PopN(int64_t seq_id, int64_t n) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.CheckNoForward("popn");
  Sequence& seq = s.Find(seq_id);
  if (n < 0 || n > seq.length) {
    throw RuntimeError("cannot pop " + std::to_string(n) + " tokens from sequence " + Id(seq_id) +
                       " of length " + std::to_string(seq.length));
  }
  const int64_t length = seq.length - n;
  const int64_t keep = s.PagesFor(length);
  const int64_t partial = length % s.config.page_size;
  // A partly kept page shared with another sequence is copied so that appends do not overwrite
  // the other sequence's tokens; check that a page is free for it before changing anything.
  const bool copy_last = partial != 0 && s.refs[seq.pages[keep - 1]] > 1;
  if (copy_last) {
    int64_t freed = 0;
    for (size_t i = keep; i < seq.pages.size(); ++i) freed += s.refs[seq.pages[i]] == 1;
    if (s.free_pages.empty() && freed == 0) s.ThrowFull(1);
  }
  while (static_cast<int64_t>(seq.pages.size()) > keep) {
    s.ReleasePage(seq.pages.back());
    seq.pages.pop_back();
  }
  if (copy_last) {
    const int64_t page = s.TakePage();
    s.CopySlots(seq.pages.back(), page, partial);
    s.ReleasePage(seq.pages.back());
    seq.pages.back() = page;
  }
  seq.length = length;
}

void PagedKvCache::Clear() const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  s.sequences.clear();
  s.ResetPages();
  s.in_forward = false;
  s.batch.clear();
  s.batch_tokens = 0;
}

void PagedKvCache::BeginForward(std::span<const int64_t> seq_ids,
                                std::span<const int64_t> append_lengths) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (s.in_forward) {
    throw RuntimeError("begin_forward during a forward (end_forward was not called)");
  }
  if (seq_ids.size() != append_lengths.size()) {
    throw RuntimeError("begin_forward: " + std::to_string(seq_ids.size()) + " sequence ids but " +
                       std::to_string(append_lengths.size()) + " append lengths");
  }
  std::set<int64_t> seen;
  int64_t needed = 0;
  for (size_t i = 0; i < seq_ids.size(); ++i) {
    const Sequence& seq = s.Find(seq_ids[i]);
    if (!seen.insert(seq_ids[i]).second) {
      throw RuntimeError("begin_forward: sequence " + Id(seq_ids[i]) +
                         " appears twice in the batch");
    }
    if (append_lengths[i] < 1) {
      throw RuntimeError("begin_forward: the append length of sequence " + Id(seq_ids[i]) + " is " +
                         std::to_string(append_lengths[i]) + ", it must be at least 1");
    }
    needed += s.PagesFor(seq.length + append_lengths[i]) - static_cast<int64_t>(seq.pages.size());
  }
  if (needed > static_cast<int64_t>(s.free_pages.size())) s.ThrowFull(needed);
  s.batch.clear();
  int64_t row = 0;
  for (size_t i = 0; i < seq_ids.size(); ++i) {
    Sequence& seq = s.sequences.at(seq_ids[i]);
    s.batch.push_back({seq_ids[i], seq.length, append_lengths[i], row});
    row += append_lengths[i];
    seq.length += append_lengths[i];
    while (static_cast<int64_t>(seq.pages.size()) < s.PagesFor(seq.length)) {
      seq.pages.push_back(s.TakePage());
    }
  }
  s.batch_tokens = row;
  s.in_forward = true;
}

void PagedKvCache::EndForward() const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (!s.in_forward) throw RuntimeError("end_forward without begin_forward");
  s.in_forward = false;
  s.batch.clear();
  s.batch_tokens = 0;
}

bool PagedKvCache::InForward() const {
  std::lock_guard lock(state_->mutex);
  return state_->in_forward;
}

void PagedKvCache::AttentionWithFusedQkv(int64_t layer_id, double sm_scale, const Tensor& qkv,
                                         TensorBuilder& out) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  const PagedKvCacheConfig& c = s.config;
  if (!s.in_forward) throw RuntimeError("attention outside begin_forward/end_forward");
  if (layer_id < c.layer_begin || layer_id >= c.layer_end) {
    throw RuntimeError("layer " + std::to_string(layer_id) + " is outside the layers [" +
                       std::to_string(c.layer_begin) + ", " + std::to_string(c.layer_end) +
                       ") this worker's cache holds");
  }
  const int64_t heads = c.num_qo_heads + 2 * c.num_kv_heads;
  if (qkv.dtype() != c.dtype || qkv.ndim() != 3 || qkv.dim(1) != heads ||
      qkv.dim(2) != c.head_dim || qkv.dim(0) < s.batch_tokens) {
    throw RuntimeError("attention: qkv " + qkv.ToString() + " must be " + c.dtype.ToString() +
                       "[n, " + std::to_string(heads) + ", " + std::to_string(c.head_dim) +
                       "] with n at least the " + std::to_string(s.batch_tokens) +
                       " tokens of the forward");
  }
  const Shape out_shape{qkv.dim(0), c.num_qo_heads, c.head_dim};
  if (out.dtype() != c.dtype || out.shape() != out_shape) {
    throw RuntimeError("attention: the output " + out.dtype().ToString() +
                       ShapeToString(out.shape()) + " must be " + c.dtype.ToString() +
                       ShapeToString(out_shape));
  }
  std::byte* pages = s.layers[layer_id - c.layer_begin].get();
  const auto* in = static_cast<const std::byte*>(qkv.raw_data());
  auto* o = static_cast<std::byte*>(out.raw_data());
  const int64_t group = c.num_qo_heads / c.num_kv_heads;
  const int64_t dim = c.head_dim;
  for (const BatchEntry& e : s.batch) {
    const Sequence& seq = s.sequences.at(e.seq_id);
    // Store the new tokens' rotated k and their v.
    for (int64_t i = 0; i < e.length; ++i) {
      const int64_t pos = e.start + i;
      const int64_t page = seq.pages[pos / c.page_size];
      const int64_t slot = pos % c.page_size;
      PS_CHECK(s.refs[page] == 1) << "a shared page would be written";
      for (int64_t h = 0; h < c.num_kv_heads; ++h) {
        const std::vector<float> k = s.ReadHead(in, e.first_row + i, c.num_qo_heads + h, pos, true);
        const std::vector<float> v =
            s.ReadHead(in, e.first_row + i, c.num_qo_heads + c.num_kv_heads + h, pos, false);
        for (int64_t d = 0; d < dim; ++d) {
          Store(s.storage, pages, s.Offset(page, 0, h, slot) + d, k[d]);
          Store(s.storage, pages, s.Offset(page, 1, h, slot) + d, v[d]);
        }
      }
    }
    // Causal attention of each new token over the sequence up to its position. Each kv head's
    // keys and values are widened once into float rows, the keys transposed: the scores of
    // all positions then accumulate side by side, each still summing its dims in order (the
    // bits of a dot product taken one position at a time). Query heads run on the kernel
    // threads; each writes its own output row, so the thread count changes no bit.
    const int64_t len = e.start + e.length;
    std::vector<float> keys(static_cast<size_t>(c.num_kv_heads * dim * len));
    std::vector<float> values(static_cast<size_t>(c.num_kv_heads * len * dim));
    for (int64_t h = 0; h < c.num_kv_heads; ++h) {
      float* kt = keys.data() + h * dim * len;
      float* v = values.data() + h * len * dim;
      for (int64_t j = 0; j < len; ++j) {
        const int64_t page = seq.pages[j / c.page_size];
        const int64_t k_base = s.Offset(page, 0, h, j % c.page_size);
        const int64_t v_base = s.Offset(page, 1, h, j % c.page_size);
        for (int64_t d = 0; d < dim; ++d) {
          kt[d * len + j] = Load(s.storage, pages, k_base + d);
          v[j * dim + d] = Load(s.storage, pages, v_base + d);
        }
      }
    }
    const float scale = static_cast<float>(sm_scale);
    detail::ParallelFor(e.length * c.num_qo_heads, [&](int64_t task) {
      const int64_t i = task / c.num_qo_heads;
      const int64_t h = task % c.num_qo_heads;
      const int64_t pos = e.start + i;
      const int64_t row = e.first_row + i;
      const std::vector<float> q = s.ReadHead(in, row, h, pos, true);
      const float* kt = keys.data() + (h / group) * dim * len;
      const float* v = values.data() + (h / group) * len * dim;
      std::vector<float> scores(static_cast<size_t>(pos + 1), 0.0f);
      for (int64_t d = 0; d < dim; ++d) {
        const float qd = q[d];
        const float* kd = kt + d * len;
        for (int64_t j = 0; j <= pos; ++j) scores[j] += qd * kd[j];
      }
      float max_score = -INFINITY;
      for (float& score : scores) {
        score *= scale;
        max_score = std::max(max_score, score);
      }
      float sum = 0;
      for (float& score : scores) {
        score = std::exp(score - max_score);
        sum += score;
      }
      std::vector<float> acc(static_cast<size_t>(dim), 0.0f);
      for (int64_t j = 0; j <= pos; ++j) {
        const float p = scores[j];
        const float* vj = v + j * dim;
        for (int64_t d = 0; d < dim; ++d) acc[d] += p * vj[d];
      }
      const int64_t o_base = (row * c.num_qo_heads + h) * dim;
      for (int64_t d = 0; d < dim; ++d) Store(s.storage, o, o_base + d, acc[d] / sum);
    });
  }
}

Tensor PagedKvCache::AttentionWithFusedQkv(int64_t layer_id, double sm_scale,
                                           const Tensor& qkv) const {
  const PagedKvCacheConfig& c = state_->config;
  const int64_t rows = qkv.ndim() == 3 ? qkv.dim(0) : 0;
  TensorBuilder out(c.dtype, {rows, c.num_qo_heads, c.head_dim});
  std::memset(out.raw_data(), 0, static_cast<size_t>(out.nbytes()));
  AttentionWithFusedQkv(layer_id, sm_scale, qkv, out);
  return std::move(out).Publish();
}

int64_t PagedKvCache::NumAvailablePages() const {
  std::lock_guard lock(state_->mutex);
  return static_cast<int64_t>(state_->free_pages.size());
}

int64_t PagedKvCache::TotalSequenceLength() const {
  std::lock_guard lock(state_->mutex);
  int64_t total = 0;
  for (const auto& [id, seq] : state_->sequences) total += seq.length;
  return total;
}

int64_t PagedKvCache::SequenceLength(int64_t seq_id) const {
  std::lock_guard lock(state_->mutex);
  return state_->Find(seq_id).length;
}

bool PagedKvCache::HasSequence(int64_t seq_id) const {
  std::lock_guard lock(state_->mutex);
  return state_->sequences.count(seq_id) != 0;
}

}  // namespace pipesplit::runtime
