// The attention KV cache builtins (vm.builtin.attention_kv_cache_create, _append, _view).
#include "pipesplit/runtime/exec/kv_cache.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

#include "pipesplit/ir/protocol.h"

namespace pipesplit::runtime {
namespace {

constexpr std::align_val_t kBufferAlignment{64};

// An uninitialized, 64-byte aligned buffer of `nbytes` (at least one byte, so that a buffer
// always has an address).
std::shared_ptr<void> AllocateBuffer(int64_t nbytes) {
  const size_t size = static_cast<size_t>(std::max<int64_t>(nbytes, 1));
  return std::shared_ptr<void>(::operator new(size, kBufferAlignment),
                               [](void* p) { ::operator delete(p, kBufferAlignment); });
}

// The dims after the first.
Shape RestDims(const Shape& shape) { return Shape(shape.begin() + 1, shape.end()); }

}  // namespace

struct KvCache::State {
  std::mutex mutex;
  DataType dtype;
  Shape shape;  // of the buffer: [reserved rows, rest...]
  int64_t row_elements = 0;
  int64_t fill_count = 0;
  std::shared_ptr<void> buffer;

  int64_t RowBytes() const { return row_elements * dtype.bytes(); }
  std::byte* Row(int64_t row) { return static_cast<std::byte*>(buffer.get()) + row * RowBytes(); }

  // Grows the buffer (doubling its rows, from 1 when it has none) until `rows` rows fit.
  void Reserve(int64_t rows) {
    int64_t reserved = shape[0];
    if (rows <= reserved) return;
    while (reserved < rows) reserved = reserved == 0 ? 1 : reserved * 2;
    Shape grown = shape;
    grown[0] = reserved;
    std::shared_ptr<void> bigger = AllocateBuffer(ShapeNumel(grown, "kv cache") * dtype.bytes());
    if (fill_count > 0) std::memcpy(bigger.get(), buffer.get(), fill_count * RowBytes());
    buffer = std::move(bigger);
    shape = std::move(grown);
  }
};

KvCache::KvCache(std::unique_ptr<State> state) : state_(std::move(state)) {}
KvCache::~KvCache() = default;

std::shared_ptr<KvCache> KvCache::Create(const Tensor& init, const Shape& reserve,
                                         int64_t fill_count) {
  const std::string op = ir::protocol::kKvCacheCreate;
  if (reserve.empty()) {
    throw RuntimeError(op + ": the reserve shape must have at least one dim, got []");
  }
  const int64_t reserve_numel = ShapeNumel(reserve, ir::protocol::kKvCacheCreate);
  CheckStorableDType(init.dtype(), ir::protocol::kKvCacheCreate);
  if (fill_count < 0) {
    throw RuntimeError(op + ": the fill count must be >= 0, got " + std::to_string(fill_count));
  }
  if (fill_count > 0) {
    if (init.ndim() == 0 || RestDims(init.shape()) != RestDims(reserve)) {
      throw RuntimeError(op + ": the initial data " + init.ToString() +
                         " does not match the reserve shape " + ShapeToString(reserve) +
                         " in the dims after the first");
    }
    if (fill_count > init.dim(0)) {
      throw RuntimeError(op + ": the fill count " + std::to_string(fill_count) +
                         " exceeds the rows of the initial data " + init.ToString());
    }
  }
  auto state = std::make_unique<State>();
  state->dtype = init.dtype();
  state->shape = reserve;
  state->row_elements = ShapeNumel(RestDims(reserve), ir::protocol::kKvCacheCreate);
  state->buffer = AllocateBuffer(reserve_numel * init.dtype().bytes());
  state->Reserve(fill_count);
  if (fill_count > 0) std::memcpy(state->Row(0), init.raw_data(), fill_count * state->RowBytes());
  state->fill_count = fill_count;
  return std::shared_ptr<KvCache>(new KvCache(std::move(state)));
}

void KvCache::Append(const Tensor& value) const {
  const std::string op = ir::protocol::kKvCacheAppend;
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  if (value.dtype() != s.dtype) {
    throw RuntimeError(op + ": dtype mismatch, the cache holds " + s.dtype.ToString() +
                       " but the value is " + value.ToString());
  }
  if (value.ndim() == 0 || RestDims(value.shape()) != RestDims(s.shape)) {
    throw RuntimeError(op + ": the value " + value.ToString() +
                       " must have the cache's dims after the first, " +
                       ShapeToString(RestDims(s.shape)));
  }
  const int64_t rows = value.dim(0);
  s.Reserve(s.fill_count + rows);
  if (rows > 0) std::memcpy(s.Row(s.fill_count), value.raw_data(), rows * s.RowBytes());
  s.fill_count += rows;
}

Tensor KvCache::View(const Shape& shape) const {
  State& s = *state_;
  std::lock_guard lock(s.mutex);
  const int64_t numel = ShapeNumel(shape, ir::protocol::kKvCacheView);
  if (numel != s.fill_count * s.row_elements) {
    throw RuntimeError(std::string(ir::protocol::kKvCacheView) + ": the shape " +
                       ShapeToString(shape) + " has " + std::to_string(numel) +
                       " elements, but the cache holds " + std::to_string(s.fill_count) +
                       " rows of " + ShapeToString(RestDims(s.shape)) + " (" +
                       std::to_string(s.fill_count * s.row_elements) + " elements)");
  }
  // Filled rows are never rewritten, so the view can share the buffer (see the header).
  return Tensor::View(s.dtype, shape, s.buffer.get(), s.buffer);
}

DataType KvCache::dtype() const { return state_->dtype; }

int64_t KvCache::fill_count() const {
  std::lock_guard lock(state_->mutex);
  return state_->fill_count;
}

Shape KvCache::reserved_shape() const {
  std::lock_guard lock(state_->mutex);
  return state_->shape;
}

namespace {

void CheckArgCount(const BuiltinCall& call, const char* op, size_t count) {
  if (call.args.size() != count) {
    throw RuntimeError(std::string(op) + " takes " + std::to_string(count) + " arguments, got " +
                       std::to_string(call.args.size()));
  }
}

const KvCache& ExpectCache(const Value& value, const char* op) {
  const auto* cache = dynamic_cast<const KvCache*>(value.as_object());
  if (cache == nullptr) {
    throw RuntimeError(std::string(op) + ": the first argument must be a kv cache, got " +
                       value.Describe());
  }
  return *cache;
}

const Shape& ExpectShape(const Value& value, const char* op, const char* what) {
  const Shape* shape = value.as_shape();
  if (shape == nullptr) {
    throw RuntimeError(std::string(op) + ": " + what + " must be a shape, got " + value.Describe());
  }
  return *shape;
}

}  // namespace

void RegisterKvCacheBuiltins(BuiltinRegistry* registry) {
  registry->Register(ir::protocol::kKvCacheCreate, [](BuiltinCall& call) -> Value {
    const char* op = ir::protocol::kKvCacheCreate;
    CheckArgCount(call, op, 3);
    const Tensor& init = call.args[0].ExpectTensor(std::string(op) + ": the initial data");
    const Shape& reserve = ExpectShape(call.args[1], op, "the reserve shape");
    const PrimScalar* fill = call.args[2].as_prim();
    if (fill == nullptr || fill->is_float()) {
      throw RuntimeError(std::string(op) + ": the fill count must be an integer prim value, got " +
                         call.args[2].Describe());
    }
    return Value::MakeObject(KvCache::Create(init, reserve, fill->int_value));
  });
  registry->Register(ir::protocol::kKvCacheAppend, [](BuiltinCall& call) -> Value {
    const char* op = ir::protocol::kKvCacheAppend;
    CheckArgCount(call, op, 2);
    const KvCache& cache = ExpectCache(call.args[0], op);
    cache.Append(call.args[1].ExpectTensor(std::string(op) + ": the value"));
    return call.args[0];  // the same cache object
  });
  registry->Register(ir::protocol::kKvCacheView, [](BuiltinCall& call) -> Value {
    const char* op = ir::protocol::kKvCacheView;
    if (call.args.size() != 1 && call.args.size() != 2) {
      throw RuntimeError(std::string(op) + " takes 1 or 2 arguments, got " +
                         std::to_string(call.args.size()));
    }
    const KvCache& cache = ExpectCache(call.args[0], op);
    if (call.args.size() == 2) return cache.View(ExpectShape(call.args[1], op, "the shape"));
    Shape shape = cache.reserved_shape();
    shape[0] = cache.fill_count();
    return cache.View(shape);
  });
}

}  // namespace pipesplit::runtime
