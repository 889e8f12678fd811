// Dtype classification and the errors of dtype dispatch (dtype_dispatch.h).
#include "src/runtime/tensor/dtype_dispatch.h"

#include "pipesplit/runtime/tensor/tensor.h"

namespace pipesplit::runtime::detail {

ElemKind KindOf(DataType dtype) {
  if (dtype.lanes() != 1) return ElemKind::kInvalid;
  switch (dtype.code()) {
    case DataType::Code::kFloat:
      if (dtype.bits() == 16) return ElemKind::kF16;
      if (dtype.bits() == 32) return ElemKind::kF32;
      if (dtype.bits() == 64) return ElemKind::kF64;
      return ElemKind::kInvalid;
    case DataType::Code::kBFloat:
      return dtype.bits() == 16 ? ElemKind::kBF16 : ElemKind::kInvalid;
    case DataType::Code::kInt:
      switch (dtype.bits()) {
        case 8:
          return ElemKind::kI8;
        case 16:
          return ElemKind::kI16;
        case 32:
          return ElemKind::kI32;
        case 64:
          return ElemKind::kI64;
        default:
          return ElemKind::kInvalid;
      }
    case DataType::Code::kUInt:
      switch (dtype.bits()) {
        case 8:
          return ElemKind::kU8;
        case 16:
          return ElemKind::kU16;
        case 32:
          return ElemKind::kU32;
        case 64:
          return ElemKind::kU64;
        default:
          return ElemKind::kInvalid;
      }
    case DataType::Code::kBool:
      return ElemKind::kBool;
    case DataType::Code::kFloat8E4M3FN:
    case DataType::Code::kFloat8E5M2:
      return ElemKind::kStorageOnly;
    default:
      return ElemKind::kInvalid;
  }
}

void ThrowUnsupportedDType(const char* op, DataType dtype) {
  throw RuntimeError(std::string(op) + ": unsupported dtype " + dtype.ToString());
}

void ThrowError(const std::string& message) { throw RuntimeError(message); }

bool IsHalfKind(DataType dtype) {
  const ElemKind kind = KindOf(dtype);
  return kind == ElemKind::kF16 || kind == ElemKind::kBF16;
}

}  // namespace pipesplit::runtime::detail
