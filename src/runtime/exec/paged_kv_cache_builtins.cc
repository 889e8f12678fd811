// The builtins of the paged KV cache (paged_kv_cache.h): argument checking and parsing of
// vm.builtin.paged_attention_kv_cache_create as MLC passes it, and the kv_state_* /
// attention_kv_cache_* calls on the cache object.
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipesplit/runtime/exec/paged_kv_cache.h"

namespace pipesplit::runtime {
namespace {

void CheckArgCount(const BuiltinCall& call, const char* op, size_t min, size_t max) {
  const size_t n = call.args.size();
  if (n >= min && n <= max) return;
  const std::string expected =
      min == max ? std::to_string(min) : std::to_string(min) + " to " + std::to_string(max);
  throw RuntimeError(std::string(op) + " takes " + expected + " arguments, got " +
                     std::to_string(n));
}

const PagedKvCache& ExpectCache(const BuiltinCall& call, const char* op) {
  const auto* cache =
      call.args.empty() ? nullptr : dynamic_cast<const PagedKvCache*>(call.args[0].as_object());
  if (cache == nullptr) {
    throw RuntimeError(std::string(op) + ": the first argument must be a paged kv cache, got " +
                       (call.args.empty() ? std::string("nothing") : call.args[0].Describe()));
  }
  return *cache;
}

int64_t ExpectInt(const Value& value, const char* op, const std::string& what) {
  const PrimScalar* prim = value.as_prim();
  if (prim == nullptr || prim->is_float()) {
    throw RuntimeError(std::string(op) + ": " + what + " must be an integer prim value, got " +
                       value.Describe());
  }
  return prim->int_value;
}

double ExpectNumber(const Value& value, const char* op, const std::string& what) {
  const PrimScalar* prim = value.as_prim();
  if (prim == nullptr) {
    throw RuntimeError(std::string(op) + ": " + what + " must be a prim value, got " +
                       value.Describe());
  }
  return prim->AsDouble();
}

const Shape& ExpectShape(const Value& value, const char* op, const std::string& what) {
  const Shape* shape = value.as_shape();
  if (shape == nullptr) {
    throw RuntimeError(std::string(op) + ": " + what + " must be a shape, got " + value.Describe());
  }
  return *shape;
}

std::string Arg(int index, const char* name) {
  return std::string(name) + " (argument " + std::to_string(index) + ")";
}

// The rope_scaling JSON a module passes where MLC passes rope ext factors (Llama 3's only).
template <typename Fail>
PagedKvCacheConfig::Llama3Rope Llama3RopeOf(const std::string& text, const Fail& fail) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || j.value("rope_type", "") != "llama3") {
    throw fail("argument 11 names a RoPE scaling other than llama3: " + text);
  }
  PagedKvCacheConfig::Llama3Rope rope;
  auto number = [&](const char* key, double* out) {
    if (!j.contains(key) || !j[key].is_number()) {
      throw fail(std::string("llama3 rope_scaling needs a number '") + key + "': " + text);
    }
    *out = j[key].get<double>();
  };
  number("factor", &rope.factor);
  number("low_freq_factor", &rope.low_freq_factor);
  number("high_freq_factor", &rope.high_freq_factor);
  number("original_max_position_embeddings", &rope.original_max_position_embeddings);
  if (!(rope.factor > 0) || !(rope.high_freq_factor > rope.low_freq_factor)) {
    throw fail("llama3 rope_scaling needs factor > 0 and high_freq_factor > low_freq_factor: " +
               text);
  }
  return rope;
}

}  // namespace

PagedKvCacheConfig PagedKvCacheConfigFromArgs(const std::vector<Value>& args,
                                              PagedKvCacheGroup group) {
  const char* op = paged_kv::kCreate;
  auto fail = [op](const std::string& message) -> RuntimeError {
    return RuntimeError(std::string(op) + ": " + message);
  };
  if (args.size() != 28 && args.size() != 29) {
    throw fail("takes 28 or 29 arguments, got " + std::to_string(args.size()));
  }
  const Shape& cache_config = ExpectShape(args[0], op, Arg(0, "the cache config"));
  if (cache_config.size() != 5 && cache_config.size() != 6) {
    throw fail(
        "the cache config (argument 0) must have 5 or 6 entries (max_batch_size, "
        "max_total_seq_len, prefill_chunk_size, page_size, support_sliding_window[, "
        "sliding_window_size]), got " +
        ShapeToString(cache_config));
  }
  const int64_t max_total_seq_len = cache_config[1];
  const int64_t page_size = cache_config[3];
  if (cache_config[4] != 0) throw fail("sliding windows are not supported");
  if (page_size <= 0)
    throw fail("the page size must be positive, got " + std::to_string(page_size));
  if (max_total_seq_len <= 0) {
    throw fail("max_total_seq_len must be positive, got " + std::to_string(max_total_seq_len));
  }

  if (group.num_groups < 1 || group.group_id < 0 || group.group_id >= group.num_groups) {
    throw fail("worker group " + std::to_string(group.group_id) + " of " +
               std::to_string(group.num_groups) + " does not exist");
  }
  const Shape& partition = ExpectShape(args[1], op, Arg(1, "the layer partition"));
  // One group runs the module unsplit and holds every layer of the partition (TVM rejects a
  // staged module's cache outside a disco session of as many groups; the unsplit reference run
  // of a split one needs it).
  const bool whole = group.num_groups == 1 && partition.size() > 2;
  if (!whole && static_cast<int64_t>(partition.size()) != group.num_groups + 1) {
    throw fail("the layer partition " + ShapeToString(partition) + " must have " +
               std::to_string(group.num_groups + 1) + " entries, one more than the " +
               std::to_string(group.num_groups) + " worker groups");
  }
  for (size_t i = 0; i < partition.size(); ++i) {
    if (partition[i] < 0 || (i > 0 && partition[i] < partition[i - 1])) {
      throw fail("the layer partition " + ShapeToString(partition) +
                 " must be non-negative and non-decreasing");
    }
  }

  PagedKvCacheConfig config;
  config.page_size = page_size;
  config.num_pages = (max_total_seq_len + page_size - 1) / page_size + 1;
  config.num_qo_heads = ExpectInt(args[2], op, Arg(2, "num_qo_heads"));
  config.num_kv_heads = ExpectInt(args[3], op, Arg(3, "num_kv_heads"));
  config.head_dim = ExpectInt(args[4], op, Arg(4, "qk_head_dim"));
  const int64_t v_head_dim = ExpectInt(args[5], op, Arg(5, "v_head_dim"));
  if (v_head_dim != config.head_dim) {
    throw fail("a v head dim (" + std::to_string(v_head_dim) + ") other than the qk head dim (" +
               std::to_string(config.head_dim) + ") is not supported");
  }
  const Shape& kinds = ExpectShape(args[6], op, Arg(6, "the attention kinds"));
  for (size_t i = 0; i < kinds.size(); ++i) {
    if (kinds[i] != 0) {
      throw fail("attention kind " + std::to_string(kinds[i]) + " of layer " + std::to_string(i) +
                 " is not supported (only 0, mha)");
    }
  }
  config.num_layers = static_cast<int64_t>(kinds.size());
  if (partition.back() > config.num_layers) {
    throw fail("the layer partition " + ShapeToString(partition) + " goes past the " +
               std::to_string(config.num_layers) + " layers of the attention kinds");
  }
  config.layer_begin = whole ? partition.front() : partition[group.group_id];
  config.layer_end = whole ? partition.back() : partition[group.group_id + 1];
  if (ExpectInt(args[7], op, Arg(7, "enable_disaggregation")) != 0) {
    throw fail("kv transfer (disaggregation) is not supported");
  }
  config.rope_mode = static_cast<RopeMode>(ExpectInt(args[8], op, Arg(8, "the rope mode")));
  config.rope_scale = ExpectNumber(args[9], op, Arg(9, "the rope scale"));
  config.rope_theta = ExpectNumber(args[10], op, Arg(10, "the rope theta"));
  if (args[11].as_tensor() != nullptr) throw fail("rope ext factors are not supported");
  if (const std::string* rope_scaling = args[11].as_string()) {
    config.llama3 = Llama3RopeOf(*rope_scaling, fail);
  }
  if (const Tensor* init = args[12].as_tensor()) {
    config.dtype = init->dtype();
  } else if (const DataType* dtype = args[12].as_dtype()) {
    config.dtype = *dtype;
  } else {
    throw fail("argument 12 must be a tensor of the cache dtype, got " + args[12].Describe());
  }
  return config;
}

void RegisterPagedKvCacheBuiltins(BuiltinRegistry* registry, PagedKvCacheGroup group) {
  using namespace paged_kv;  // NOLINT(build/namespaces)
  registry->Register(kCreate, [group](BuiltinCall& call) -> Value {
    return Value::MakeObject(PagedKvCache::Create(PagedKvCacheConfigFromArgs(call.args, group)));
  });
  registry->Register(kAddSequence, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kAddSequence, 2, 2);
    ExpectCache(call, kAddSequence)
        .AddSequence(ExpectInt(call.args[1], kAddSequence, "the sequence id"));
    return Value();
  });
  registry->Register(kRemoveSequence, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kRemoveSequence, 2, 2);
    ExpectCache(call, kRemoveSequence)
        .RemoveSequence(ExpectInt(call.args[1], kRemoveSequence, "the sequence id"));
    return Value();
  });
  registry->Register(kForkSequence, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kForkSequence, 3, 4);
    const PagedKvCache& cache = ExpectCache(call, kForkSequence);
    const int64_t fork_pos =
        call.args.size() == 4 ? ExpectInt(call.args[3], kForkSequence, "the fork position") : -1;
    cache.ForkSequence(ExpectInt(call.args[1], kForkSequence, "the parent id"),
                       ExpectInt(call.args[2], kForkSequence, "the child id"), fork_pos);
    return Value();
  });
  registry->Register(kPopN, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kPopN, 3, 3);
    ExpectCache(call, kPopN)
        .PopN(ExpectInt(call.args[1], kPopN, "the sequence id"),
              ExpectInt(call.args[2], kPopN, "the token count"));
    return Value();
  });
  registry->Register(kClear, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kClear, 1, 1);
    ExpectCache(call, kClear).Clear();
    return Value();
  });
  registry->Register(kBeginForward, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kBeginForward, 3, 4);
    const PagedKvCache& cache = ExpectCache(call, kBeginForward);
    const Shape& seq_ids = ExpectShape(call.args[1], kBeginForward, "the sequence ids");
    const Shape& lengths = ExpectShape(call.args[2], kBeginForward, "the append lengths");
    if (call.args.size() == 4 && !call.args[3].is_null()) {
      const Shape* tree = call.args[3].as_shape();
      if (tree == nullptr || !tree->empty()) {
        throw RuntimeError(std::string(kBeginForward) + ": token trees are not supported, got " +
                           call.args[3].Describe());
      }
    }
    cache.BeginForward(seq_ids, lengths);
    return Value();
  });
  registry->Register(kEndForward, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kEndForward, 1, 1);
    ExpectCache(call, kEndForward).EndForward();
    return Value();
  });
  registry->Register(kAttentionWithFusedQkv, [](BuiltinCall& call) -> Value {
    const char* op = kAttentionWithFusedQkv;
    CheckArgCount(call, op, 4, 5);
    const PagedKvCache& cache = ExpectCache(call, op);
    const int64_t layer_id = ExpectInt(call.args[1], op, "the layer id");
    const double sm_scale = ExpectNumber(call.args[2], op, "sm_scale");
    const Tensor& qkv = call.args[3].ExpectTensor(std::string(op) + ": qkv");
    if (call.args.size() == 5) {
      // R.call_packed with the destination as the last argument (a memory-planned module).
      const Tensor& dest = call.args[4].ExpectTensor(std::string(op) + ": the output");
      TensorBuilder out(dest.dtype(), dest.shape());
      cache.AttentionWithFusedQkv(layer_id, sm_scale, qkv, out);
      std::memcpy(const_cast<void*>(dest.raw_data()), out.raw_data(), out.nbytes());
      return Value();
    }
    std::vector<TensorBuilder>& outputs = call.Outputs();
    if (outputs.size() != 1) {
      throw RuntimeError(std::string(op) + " has one output, the call declares " +
                         std::to_string(outputs.size()));
    }
    cache.AttentionWithFusedQkv(layer_id, sm_scale, qkv, outputs[0]);
    return Value();
  });
  registry->Register(kGetNumAvailablePages, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kGetNumAvailablePages, 1, 1);
    return Value::MakePrim(
        {DataType::Int(64), ExpectCache(call, kGetNumAvailablePages).NumAvailablePages(), 0});
  });
  registry->Register(kGetTotalSequenceLength, [](BuiltinCall& call) -> Value {
    CheckArgCount(call, kGetTotalSequenceLength, 1, 1);
    return Value::MakePrim(
        {DataType::Int(64), ExpectCache(call, kGetTotalSequenceLength).TotalSequenceLength(), 0});
  });
}

}  // namespace pipesplit::runtime
