// Dtype classification, shared error messages, axis normalization and broadcasting of
// shapes for the reference kernels.
#include "src/runtime/kernels/kernel_util.h"

#include <algorithm>

#include "pipesplit/runtime/kernels/elementwise.h"

namespace pipesplit::runtime::detail {

Tensor WidenHalf(const Tensor& t) { return IsHalfKind(t.dtype()) ? Astype(t, Float32()) : t; }

Tensor NarrowTo(const Tensor& t, DataType dtype) {
  return IsHalfKind(dtype) ? Astype(t, dtype) : t;
}

void CheckSameDType(const char* op, const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype()) {
    ThrowError(std::string(op) + ": dtypes " + a.dtype().ToString() + " and " +
               b.dtype().ToString() + " do not match");
  }
}

int64_t NormalizeAxis(const char* op, int64_t axis, int64_t ndim, const Shape& shape) {
  if (axis < -ndim || axis >= ndim) {
    ThrowError(std::string(op) + ": axis " + std::to_string(axis) + " is out of range for shape " +
               ShapeToString(shape));
  }
  return axis < 0 ? axis + ndim : axis;
}

std::vector<int64_t> NormalizeAxes(const char* op, const std::optional<std::vector<int64_t>>& axes,
                                   const Shape& shape) {
  const int64_t ndim = static_cast<int64_t>(shape.size());
  std::vector<int64_t> out;
  if (!axes) {
    for (int64_t i = 0; i < ndim; ++i) out.push_back(i);
    return out;
  }
  for (int64_t axis : *axes) {
    const int64_t a = NormalizeAxis(op, axis, ndim, shape);
    if (std::find(out.begin(), out.end(), a) != out.end()) {
      ThrowError(std::string(op) + ": axis " + std::to_string(axis) + " is repeated in " +
                 ShapeToString(*axes));
    }
    out.push_back(a);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Shape BroadcastShapes(const char* op, const Shape& a, const Shape& b) {
  const size_t ndim = std::max(a.size(), b.size());
  Shape out(ndim);
  for (size_t i = 0; i < ndim; ++i) {
    const int64_t da = i < ndim - a.size() ? 1 : a[i - (ndim - a.size())];
    const int64_t db = i < ndim - b.size() ? 1 : b[i - (ndim - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      ThrowError(std::string(op) + ": shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                 " cannot be broadcast");
    }
  }
  return out;
}

}  // namespace pipesplit::runtime::detail
