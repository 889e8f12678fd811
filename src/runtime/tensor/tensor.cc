// Tensor storage, construction and inspection helpers.
#include "pipesplit/runtime/tensor/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "pipesplit/support/check.h"
#include "src/runtime/tensor/dtype_dispatch.h"

namespace pipesplit::runtime {

using detail::ElemKind;
using detail::KindOf;
using detail::Tag;

namespace {

constexpr size_t kAlignment = 64;

// The data pointer of zero-element tensors: defined, aligned, never read.
alignas(kAlignment) const unsigned char kEmptyStorage[kAlignment] = {};

// Recycles freed tensor buffers by exact size. A forward pass allocates the same sizes layer
// after layer, and a fresh large allocation costs a page fault per page (glibc maps it anew
// and unmaps it on free), so reusing buffers removes most of the kernel time of a run. Small
// buffers go straight to malloc, which already recycles them; the cache is bounded.
class BufferPool {
 public:
  static BufferPool& Global() {
    static BufferPool* pool = new BufferPool();  // never destroyed: tensors may outlive main
    return *pool;
  }

  void* Acquire(size_t bytes) {
    if (bytes >= kMinPooled) {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = free_.find(bytes);
      if (it != free_.end() && !it->second.empty()) {
        void* p = it->second.back();
        it->second.pop_back();
        cached_ -= bytes;
        return p;
      }
    }
    return std::aligned_alloc(kAlignment, bytes);
  }

  void Release(void* p, size_t bytes) {
    if (bytes >= kMinPooled) {
      std::lock_guard<std::mutex> lock(mu_);
      if (cached_ + bytes <= kMaxCached) {
        free_[bytes].push_back(p);
        cached_ += bytes;
        return;
      }
    }
    std::free(p);
  }

 private:
  static constexpr size_t kMinPooled = size_t{64} << 10;
  static constexpr size_t kMaxCached = size_t{256} << 20;
  std::mutex mu_;
  std::unordered_map<size_t, std::vector<void*>> free_;
  size_t cached_ = 0;
};

}  // namespace

std::string ShapeToString(std::span<const int64_t> shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

int64_t ShapeNumel(std::span<const int64_t> shape, const char* op) {
  int64_t numel = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      detail::ThrowError(std::string(op) + ": negative dimension in shape " + ShapeToString(shape));
    }
    if (d != 0 && numel > std::numeric_limits<int64_t>::max() / d) {
      detail::ThrowError(std::string(op) + ": shape " + ShapeToString(shape) +
                         " has too many elements");
    }
    numel *= d;
  }
  return numel;
}

bool IsStorableDType(DataType dtype) { return KindOf(dtype) != ElemKind::kInvalid; }

void CheckStorableDType(DataType dtype, const char* op) {
  if (!IsStorableDType(dtype)) detail::ThrowUnsupportedDType(op, dtype);
}

Tensor::Tensor(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> storage)
    : dtype_(dtype),
      shape_(std::move(shape)),
      numel_(ShapeNumel(shape_)),
      data_(data),
      storage_(std::move(storage)) {}

Tensor Tensor::View(DataType dtype, Shape shape, const void* data,
                    std::shared_ptr<const void> owner) {
  CheckStorableDType(dtype, "tensor");
  const int64_t numel = ShapeNumel(shape);
  if (numel == 0) data = kEmptyStorage;
  PS_CHECK(data != nullptr);
  PS_CHECK(reinterpret_cast<uintptr_t>(data) % static_cast<uintptr_t>(dtype.bytes()) == 0)
      << "misaligned tensor view";
  return Tensor(dtype, std::move(shape), data, std::move(owner));
}

int64_t Tensor::dim(int axis) const {
  const int n = ndim();
  if (axis < 0) axis += n;
  PS_CHECK(axis >= 0 && axis < n) << "axis " << axis << " of " << ToString();
  return shape_[axis];
}

Shape Tensor::strides() const {
  Shape strides(shape_.size());
  int64_t running = 1;
  for (size_t i = shape_.size(); i-- > 0;) {
    strides[i] = running;
    running *= shape_[i];
  }
  return strides;
}

Tensor Tensor::WithShape(Shape shape) const {
  PS_CHECK(ShapeNumel(shape) == numel_) << ShapeToString(shape) << " vs " << ToString();
  return Tensor(dtype_, std::move(shape), data_, storage_);
}

std::string Tensor::ToString() const {
  if (!defined()) return "undefined";
  return dtype_.ToString() + ShapeToString(shape_);
}

DLTensorView Tensor::AsDLTensor() const {
  uint8_t code = 0;
  switch (dtype_.code()) {
    case DataType::Code::kInt:
      code = 0;
      break;
    case DataType::Code::kUInt:
      code = 1;
      break;
    case DataType::Code::kFloat:
      code = 2;
      break;
    case DataType::Code::kBFloat:
      code = 4;
      break;
    case DataType::Code::kBool:
      code = 6;
      break;
    case DataType::Code::kFloat8E4M3FN:
      code = 10;
      break;
    case DataType::Code::kFloat8E5M2:
      code = 12;
      break;
    default:
      PS_UNREACHABLE();
  }
  // Bool is stored as 8 bits, as DLPack consumers expect.
  const uint8_t bits = static_cast<uint8_t>(dtype_.is_bool() ? 8 : dtype_.bits());
  return DLTensorView{const_cast<void*>(data_),
                      1,
                      0,
                      ndim(),
                      code,
                      bits,
                      static_cast<uint16_t>(dtype_.lanes()),
                      shape_.data(),
                      nullptr,
                      0};
}

TensorBuilder::TensorBuilder(DataType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  CheckStorableDType(dtype_, "tensor");
  numel_ = ShapeNumel(shape_);
  const int64_t elem = dtype_.bytes();
  if (numel_ > std::numeric_limits<int64_t>::max() / elem) {
    detail::ThrowError("tensor: shape " + ShapeToString(shape_) + " has too many bytes");
  }
  size_t bytes = static_cast<size_t>(numel_ * elem);
  bytes = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  if (bytes == 0) bytes = kAlignment;
  void* data = BufferPool::Global().Acquire(bytes);
  if (data == nullptr) {
    detail::ThrowError("tensor: cannot allocate " + std::to_string(bytes) + " bytes for " +
                       dtype_.ToString() + ShapeToString(shape_));
  }
  storage_ =
      std::shared_ptr<void>(data, [bytes](void* p) { BufferPool::Global().Release(p, bytes); });
  data_ = data;
}

Tensor TensorBuilder::Publish() && {
  PS_CHECK(data_ != nullptr) << "tensor builder published twice";
  const void* data = numel_ == 0 ? static_cast<const void*>(kEmptyStorage) : data_;
  Tensor out(dtype_, std::move(shape_), data, std::move(storage_));
  data_ = nullptr;
  return out;
}

namespace {

template <typename Value>
Tensor MakeFromValues(DataType dtype, Shape shape, std::span<const Value> values) {
  TensorBuilder builder(dtype, std::move(shape));
  if (static_cast<int64_t>(values.size()) != builder.numel()) {
    detail::ThrowError("tensor: " + std::to_string(values.size()) + " values for shape " +
                       ShapeToString(builder.shape()));
  }
  detail::DispatchAll(dtype, "tensor", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* out = builder.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = detail::ConvertValue<T>(values[i]);
  });
  return std::move(builder).Publish();
}

}  // namespace

Tensor MakeTensor(DataType dtype, Shape shape, std::span<const double> values) {
  return MakeFromValues<double>(dtype, std::move(shape), values);
}

Tensor MakeTensor(DataType dtype, Shape shape, std::initializer_list<double> values) {
  return MakeFromValues<double>(dtype, std::move(shape),
                                std::span<const double>(values.begin(), values.size()));
}

Tensor MakeIntTensor(DataType dtype, Shape shape, std::span<const int64_t> values) {
  return MakeFromValues<int64_t>(dtype, std::move(shape), values);
}

Tensor MakeIntTensor(DataType dtype, Shape shape, std::initializer_list<int64_t> values) {
  return MakeFromValues<int64_t>(dtype, std::move(shape),
                                 std::span<const int64_t>(values.begin(), values.size()));
}

Tensor MakeScalar(DataType dtype, double value) { return MakeTensor(dtype, {}, {value}); }

Tensor FromBytes(DataType dtype, Shape shape, const void* data, size_t nbytes) {
  TensorBuilder builder(dtype, std::move(shape));
  if (static_cast<int64_t>(nbytes) != builder.nbytes()) {
    detail::ThrowError("tensor: " + std::to_string(nbytes) + " bytes for " + dtype.ToString() +
                       ShapeToString(builder.shape()) + " (" + std::to_string(builder.nbytes()) +
                       " expected)");
  }
  if (nbytes > 0) std::memcpy(builder.raw_data(), data, nbytes);
  if (dtype.is_bool()) {  // keep the bool invariant: every byte is 0 or 1
    auto* bytes = static_cast<unsigned char*>(builder.raw_data());
    for (size_t i = 0; i < nbytes; ++i) bytes[i] = bytes[i] != 0;
  }
  return std::move(builder).Publish();
}

double ElementAsDouble(const Tensor& tensor, int64_t index) {
  PS_CHECK(index >= 0 && index < tensor.numel()) << index << " in " << tensor.ToString();
  if (KindOf(tensor.dtype()) == ElemKind::kStorageOnly) {
    detail::ThrowUnsupportedDType("tensor", tensor.dtype());
  }
  return detail::DispatchAll(tensor.dtype(), "tensor", [&](auto tag) -> double {
    using T = typename decltype(tag)::type;
    return detail::ConvertValue<double>(tensor.data<T>()[index]);
  });
}

int64_t ElementAsInt64(const Tensor& tensor, int64_t index) {
  PS_CHECK(index >= 0 && index < tensor.numel()) << index << " in " << tensor.ToString();
  return detail::DispatchAll(tensor.dtype(), "tensor", [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    return detail::ConvertValue<int64_t>(tensor.data<T>()[index]);
  });
}

std::vector<double> ToDoubleVector(const Tensor& tensor) {
  std::vector<double> out(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) out[i] = ElementAsDouble(tensor, i);
  return out;
}

std::vector<int64_t> ToInt64Vector(const Tensor& tensor) {
  std::vector<int64_t> out(static_cast<size_t>(tensor.numel()));
  for (int64_t i = 0; i < tensor.numel(); ++i) out[i] = ElementAsInt64(tensor, i);
  return out;
}

bool BitwiseEqual(const Tensor& a, const Tensor& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined()) return true;
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  return a.nbytes() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

double MaxAbsDiff(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape()) {
    detail::ThrowError("max_abs_diff: shapes " + ShapeToString(a.shape()) + " and " +
                       ShapeToString(b.shape()) + " differ");
  }
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    const double x = ElementAsDouble(a, i);
    const double y = ElementAsDouble(b, i);
    const bool x_nan = std::isnan(x);
    const bool y_nan = std::isnan(y);
    if (x_nan || y_nan) {
      if (x_nan != y_nan) return std::numeric_limits<double>::infinity();
      continue;
    }
    if (x == y) continue;  // equal infinities too
    const double d = std::fabs(x - y);
    if (d > worst) worst = d;
  }
  return worst;
}

namespace {

std::string FormatElement(const Tensor& t, int64_t i) {
  if (t.dtype().is_bool()) return ElementAsInt64(t, i) ? "True" : "False";
  if (t.dtype().is_float()) {
    const double v = ElementAsDouble(t, i);
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::ostringstream os;
    os.precision(9);
    os << v;
    return os.str();
  }
  if (t.dtype().is_uint()) {
    return std::to_string(static_cast<uint64_t>(ElementAsInt64(t, i)));
  }
  return std::to_string(ElementAsInt64(t, i));
}

}  // namespace

std::string FormatValues(const Tensor& tensor, int64_t limit) {
  if (!tensor.defined()) return "undefined";
  if (tensor.ndim() == 0) return FormatElement(tensor, 0);
  const Shape& shape = tensor.shape();
  const Shape strides = tensor.strides();
  std::string out;
  int64_t printed = 0;
  const int64_t total = tensor.numel();
  if (total == 0) {
    for (int d = 0; d < tensor.ndim(); ++d) out += "[";
    for (int d = 0; d < tensor.ndim(); ++d) out += "]";
    return out;
  }
  for (int64_t i = 0; i < total; ++i) {
    // Open a bracket for every dim whose index is 0 at this element.
    int opened = 0;
    for (int d = tensor.ndim() - 1; d >= 0 && (i / strides[d]) % shape[d] == 0; --d) ++opened;
    if (i > 0) out += ", ";
    out.append(static_cast<size_t>(opened), '[');
    if (printed == limit) {
      out += "...";
      out.append(static_cast<size_t>(tensor.ndim()), ']');  // every bracket is open here
      return out;
    }
    out += FormatElement(tensor, i);
    ++printed;
    int closed = 0;
    for (int d = tensor.ndim() - 1; d >= 0 && ((i + 1) / strides[d]) % shape[d] == 0; --d) ++closed;
    out.append(static_cast<size_t>(closed), ']');
  }
  return out;
}

}  // namespace pipesplit::runtime
