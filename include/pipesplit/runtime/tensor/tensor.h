// Runtime tensors: dense, contiguous, row-major, immutable and shared.
//
// A Tensor is a dtype, an int64 shape and a pointer into shared read-only storage. Copying a
// Tensor shares the storage; nothing ever writes to a published tensor, so tensors may be
// handed between threads freely. Storage is either a 64-byte aligned allocation made by a
// TensorBuilder (kernels fill a builder, then publish it) or a read-only region owned by
// someone else (a memory-mapped safetensors file) kept alive by a shared owner; such views
// are aligned at least to their element size.
//
// The layout is DLPack's: data pointer, dtype as (code, bits, lanes), int64 shape and
// compact row-major strides (AsDLTensor describes a tensor in DLTensor's exact layout).
//
// Element types the runtime stores: float16, bfloat16, float32, float64, int8/16/32/64,
// uint8/16/32/64, bool (one byte, 0 or 1) and, for storage only, float8_e4m3fn/float8_e5m2.
// Errors in runtime inputs are RuntimeErrors with lowercase messages naming the operation.
#ifndef PIPESPLIT_RUNTIME_TENSOR_TENSOR_H_
#define PIPESPLIT_RUNTIME_TENSOR_TENSOR_H_

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipesplit/support/dtype.h"
#include "pipesplit/support/error.h"

namespace pipesplit::runtime {

// A user-level error in runtime inputs: mismatched shapes, bad axes, out-of-range indices,
// unsupported dtypes, malformed files.
// (A user error of support/error.h: exit status 1.)
class RuntimeError : public Error {
 public:
  explicit RuntimeError(const std::string& what, std::optional<Span> location = std::nullopt)
      : Error(ErrorKind::kUser, what, location) {}
};

using Shape = std::vector<int64_t>;

// "[2, 3]"; "[]" for a scalar.
std::string ShapeToString(std::span<const int64_t> shape);
// Product of the dims; throws RuntimeError naming `op` when a dim is negative or the product
// overflows int64.
int64_t ShapeNumel(std::span<const int64_t> shape, const char* op = "tensor");

// Whether the runtime can store tensors of `dtype` (see the list above).
bool IsStorableDType(DataType dtype);
// Throws RuntimeError "<op>: unsupported dtype <dtype>" unless storable.
void CheckStorableDType(DataType dtype, const char* op);

// DLPack's DLTensor, field for field (so it can be handed to DLPack consumers by pointer).
struct DLTensorView {
  void* data;
  int32_t device_type;  // 1 = kDLCPU
  int32_t device_id;
  int32_t ndim;
  uint8_t dtype_code;  // 0 int, 1 uint, 2 float, 4 bfloat, 6 bool
  uint8_t dtype_bits;
  uint16_t dtype_lanes;
  const int64_t* shape;
  const int64_t* strides;  // nullptr: compact row-major
  uint64_t byte_offset;
};

class Tensor {
 public:
  // An undefined tensor (defined() == false).
  Tensor() = default;

  // A read-only view of `data` (not copied) kept alive by `owner`. `data` must hold
  // numel * element bytes and be aligned to the element size.
  static Tensor View(DataType dtype, Shape shape, const void* data,
                     std::shared_ptr<const void> owner);

  bool defined() const { return data_ != nullptr; }
  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int ndim() const { return static_cast<int>(shape_.size()); }
  // Dim `axis` (negative counts from the end); PS_CHECKs the range.
  int64_t dim(int axis) const;
  int64_t numel() const { return numel_; }
  int64_t element_bytes() const { return dtype_.bytes(); }
  int64_t nbytes() const { return numel_ * dtype_.bytes(); }
  // Row-major strides in elements.
  Shape strides() const;

  const void* raw_data() const { return data_; }
  template <typename T>
  const T* data() const {
    return static_cast<const T*>(data_);
  }
  // The storage owner (shared by every tensor viewing the same buffer).
  const std::shared_ptr<const void>& storage() const { return storage_; }

  // The same storage under another shape with the same element count (PS_CHECKed).
  Tensor WithShape(Shape shape) const;

  // "float32[2, 3]".
  std::string ToString() const;

  DLTensorView AsDLTensor() const;

 private:
  friend class TensorBuilder;
  Tensor(DataType dtype, Shape shape, const void* data, std::shared_ptr<const void> storage);

  DataType dtype_;
  Shape shape_;
  int64_t numel_ = 0;
  const void* data_ = nullptr;
  std::shared_ptr<const void> storage_;
};

// A new tensor being filled: mutable until Publish() hands it out as an immutable Tensor.
// The buffer is 64-byte aligned and uninitialized.
class TensorBuilder {
 public:
  // Throws RuntimeError for unstorable dtypes, negative dims or sizes that overflow.
  TensorBuilder(DataType dtype, Shape shape);
  TensorBuilder(TensorBuilder&&) = default;
  TensorBuilder& operator=(TensorBuilder&&) = default;

  DataType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  int64_t nbytes() const { return numel_ * dtype_.bytes(); }
  void* raw_data() { return data_; }
  template <typename T>
  T* data() {
    return static_cast<T*>(data_);
  }

  // The finished tensor; the builder is empty afterwards.
  Tensor Publish() &&;

 private:
  DataType dtype_;
  Shape shape_;
  int64_t numel_ = 0;
  void* data_ = nullptr;
  std::shared_ptr<void> storage_;
};

// --- construction helpers (tests, constants, the interpreter) ---

// A tensor of `dtype` holding `values` converted as astype would (floats rounded to nearest
// even, integers wrapped, bool = nonzero). `values.size()` must equal the shape's numel.
Tensor MakeTensor(DataType dtype, Shape shape, std::span<const double> values);
Tensor MakeTensor(DataType dtype, Shape shape, std::initializer_list<double> values);
// Same from int64 values (exact for 64-bit integer dtypes).
Tensor MakeIntTensor(DataType dtype, Shape shape, std::span<const int64_t> values);
Tensor MakeIntTensor(DataType dtype, Shape shape, std::initializer_list<int64_t> values);
// A 0-d tensor.
Tensor MakeScalar(DataType dtype, double value);
// A copy of `nbytes` raw bytes (must equal the tensor's byte size).
Tensor FromBytes(DataType dtype, Shape shape, const void* data, size_t nbytes);

// --- inspection helpers ---

// Element `index` (flat, row-major) as a double (float16/bfloat16 widened exactly).
double ElementAsDouble(const Tensor& tensor, int64_t index);
// Element `index` as an int64 (floats truncated; for index/shape tensors).
int64_t ElementAsInt64(const Tensor& tensor, int64_t index);
std::vector<double> ToDoubleVector(const Tensor& tensor);
std::vector<int64_t> ToInt64Vector(const Tensor& tensor);

// Same dtype, same shape, same bytes.
bool BitwiseEqual(const Tensor& a, const Tensor& b);
// Largest |a - b| over all elements (compared as doubles); NaN in both at the same place
// counts as equal, NaN in one of them as +inf. Throws RuntimeError when the shapes differ.
double MaxAbsDiff(const Tensor& a, const Tensor& b);

// The values, nested like the shape, e.g. "[[1, 2.5], [3, 4]]"; after `limit` elements the
// rest is elided as "...". Floats print with up to 9 significant digits.
std::string FormatValues(const Tensor& tensor, int64_t limit = 64);

}  // namespace pipesplit::runtime

#endif  // PIPESPLIT_RUNTIME_TENSOR_TENSOR_H_
