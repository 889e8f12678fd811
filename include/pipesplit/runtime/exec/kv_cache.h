// The attention KV cache of the MLC-LLM dumps: a growable buffer of rows that the
// vm.builtin.attention_kv_cache_* builtins create, append to and view.
//
// A KvCache is an R.Object value. Unlike the other run-time values it is mutable state shared
// by reference: appending through any copy of the value is seen by every other copy (the
// dumps thread the cache through functions and keep using the same object). Views share the
// cache's buffer without copying: rows already filled are never written again (appends write
// after them, growth moves them to a new buffer), so a view stays valid and immutable.
#ifndef PIPESPLIT_RUNTIME_EXEC_KV_CACHE_H_
#define PIPESPLIT_RUNTIME_EXEC_KV_CACHE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "pipesplit/runtime/exec/builtins.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/runtime/tensor/value.h"

namespace pipesplit::runtime {

class KvCache : public Object {
 public:
  // A cache whose buffer has shape `reserve` and the dtype of `init`, holding the first
  // `fill_count` rows of `init` (whose dims after the first must equal reserve's). Throws
  // RuntimeError for a reserve of rank 0, a negative dim or fill count, or a fill count above
  // init's row count.
  static std::shared_ptr<KvCache> Create(const Tensor& init, const Shape& reserve,
                                         int64_t fill_count);
  ~KvCache() override;

  std::string TypeName() const override { return "kv_cache"; }

  // Copies the rows of `value` (same dtype, same dims after the first) after the filled rows,
  // doubling the buffer's first dim until they fit. Mutates the shared state (hence const:
  // the handle does not change, what it points to does).
  void Append(const Tensor& value) const;
  // The filled rows as a tensor of `shape`, whose element count must be fill_count times the
  // row size.
  Tensor View(const Shape& shape) const;

  DataType dtype() const;
  int64_t fill_count() const;
  // The buffer's shape (its first dim is the number of reserved rows).
  Shape reserved_shape() const;

 private:
  struct State;
  explicit KvCache(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

// Registers vm.builtin.attention_kv_cache_create, _append and _view.
void RegisterKvCacheBuiltins(BuiltinRegistry* registry);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_EXEC_KV_CACHE_H_
