// A naive reference of the paged KV cache's semantics for the tests (independent of
// paged_kv_cache.cc): per sequence and layer the list of its tokens' rotated keys and values in
// double precision, no pages, attention by direct loops over every cached token.
#ifndef PIPESPLIT_TESTS_RUNTIME_PAGED_KV_REFERENCE_H_
#define PIPESPLIT_TESTS_RUNTIME_PAGED_KV_REFERENCE_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include "pipesplit/runtime/exec/paged_kv_cache.h"

namespace pipesplit::runtime::testing {

// The caches the tests drive: h_q = 4, h_kv = 2 (GQA groups of 2), d = 8, two layers (global
// ids 0 and 1), float32, RoPE (theta 10000, scale 1) and `pages` pages of 16 tokens.
inline PagedKvCacheConfig SmallConfig(int64_t pages = 12) {
  PagedKvCacheConfig c;
  c.page_size = 16;
  c.num_pages = pages;
  c.num_layers = 2;
  c.layer_begin = 0;
  c.layer_end = 2;
  c.num_qo_heads = 4;
  c.num_kv_heads = 2;
  c.head_dim = 8;
  c.rope_mode = RopeMode::kNormal;
  c.rope_scale = 1;
  c.rope_theta = 10000;
  c.dtype = DataType::Float(32);
  return c;
}

class PagedKvReference {
 public:
  explicit PagedKvReference(const PagedKvCacheConfig& config) : c_(config) {}

  void Add(int64_t id) { seqs_[id] = Seq{0, std::vector<std::vector<Token>>(c_.num_layers)}; }
  void Remove(int64_t id) { seqs_.erase(id); }
  void Fork(int64_t parent, int64_t child, int64_t pos) {
    Seq seq = seqs_.at(parent);
    if (pos == -1) pos = seq.length;
    Truncate(seq, pos);
    seqs_[child] = seq;
  }
  void PopN(int64_t id, int64_t n) {
    Seq& seq = seqs_.at(id);
    Truncate(seq, seq.length - n);
  }
  int64_t Length(int64_t id) const { return seqs_.at(id).length; }

  void Begin(const std::vector<int64_t>& ids, const std::vector<int64_t>& lengths) {
    batch_.clear();
    for (size_t i = 0; i < ids.size(); ++i) {
      batch_.push_back({ids[i], seqs_.at(ids[i]).length, lengths[i]});
      seqs_.at(ids[i]).length += lengths[i];
    }
  }

  // The expected attention output of `layer` for the batch of Begin, [tokens, h_q, d] flat.
  std::vector<double> Attention(int64_t layer, double sm_scale, const Tensor& qkv) {
    const std::vector<double> x = ToDoubleVector(qkv);
    const int64_t hq = c_.num_qo_heads, hkv = c_.num_kv_heads, d = c_.head_dim;
    const int64_t heads = hq + 2 * hkv;
    auto at = [&](int64_t row, int64_t head) { return &x[(row * heads + head) * d]; };
    std::vector<double> out;
    int64_t row = 0;
    for (const Entry& e : batch_) {
      std::vector<Token>& tokens = seqs_.at(e.id).layers[layer];
      tokens.resize(e.start);
      for (int64_t i = 0; i < e.length; ++i) {
        Token t;
        for (int64_t h = 0; h < hkv; ++h) {
          std::vector<double> k = Rope(at(row + i, hq + h), e.start + i);
          t.k.insert(t.k.end(), k.begin(), k.end());
          t.v.insert(t.v.end(), at(row + i, hq + hkv + h), at(row + i, hq + hkv + h) + d);
        }
        tokens.push_back(std::move(t));
      }
      for (int64_t i = 0; i < e.length; ++i) {
        const int64_t pos = e.start + i;
        for (int64_t h = 0; h < hq; ++h) {
          const std::vector<double> q = Rope(at(row + i, h), pos);
          const int64_t g = h / (hq / hkv);
          std::vector<double> w(pos + 1);
          double max_w = -1e300;
          for (int64_t j = 0; j <= pos; ++j) {
            double dot = 0;
            for (int64_t k = 0; k < d; ++k) dot += q[k] * tokens[j].k[g * d + k];
            w[j] = dot * sm_scale;
            max_w = std::max(max_w, w[j]);
          }
          double total = 0;
          for (double& v : w) total += (v = std::exp(v - max_w));
          for (int64_t k = 0; k < d; ++k) {
            double acc = 0;
            for (int64_t j = 0; j <= pos; ++j) acc += w[j] * tokens[j].v[g * d + k];
            out.push_back(acc / total);
          }
        }
      }
      row += e.length;
    }
    return out;
  }

 private:
  struct Token {
    std::vector<double> k, v;  // [h_kv * d]
  };
  struct Seq {
    int64_t length = 0;
    std::vector<std::vector<Token>> layers;
  };
  struct Entry {
    int64_t id, start, length;
  };

  static void Truncate(Seq& seq, int64_t length) {
    seq.length = length;
    for (std::vector<Token>& tokens : seq.layers) {
      if (static_cast<int64_t>(tokens.size()) > length) tokens.resize(length);
    }
  }

  // Rotates pairs (x[i], x[i + d/2]) by the angle pos * scale / theta^(2i / d) (with Llama 3's
  // frequencies as Hugging Face computes them when rope_scaling is llama3).
  std::vector<double> Rope(const double* x, int64_t pos) const {
    const int64_t d = c_.head_dim;
    std::vector<double> out(x, x + d);
    if (c_.rope_mode != RopeMode::kNormal) return out;
    for (int64_t i = 0; i < d / 2; ++i) {
      double freq = 1.0 / std::pow(c_.rope_theta, 2.0 * i / d);
      if (const PagedKvCacheConfig::Llama3Rope& r = c_.llama3; r.factor > 0) {
        // Llama 3: wavelengths beyond original / low scaled by 1 / factor, below original / high
        // kept, the ones between interpolated by the smooth factor.
        const double pi = 3.14159265358979323846;
        const double wavelength = 2 * pi / freq;
        const double low = r.original_max_position_embeddings / r.low_freq_factor;
        const double high = r.original_max_position_embeddings / r.high_freq_factor;
        if (wavelength > low) {
          freq /= r.factor;
        } else if (wavelength >= high) {
          const double smooth =
              (r.original_max_position_embeddings / wavelength - r.low_freq_factor) /
              (r.high_freq_factor - r.low_freq_factor);
          freq = (1 - smooth) * freq / r.factor + smooth * freq;
        }
      }
      const double angle = pos * c_.rope_scale * freq;
      const double a = x[i], b = x[i + d / 2];
      out[i] = a * std::cos(angle) - b * std::sin(angle);
      out[i + d / 2] = b * std::cos(angle) + a * std::sin(angle);
    }
    return out;
  }

  PagedKvCacheConfig c_;
  std::map<int64_t, Seq> seqs_;
  std::vector<Entry> batch_;
};

}  // namespace pipesplit::runtime::testing

#endif  // PIPESPLIT_TESTS_RUNTIME_PAGED_KV_REFERENCE_H_
