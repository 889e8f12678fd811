// Internal pieces of the code generator shared by its source files.
#ifndef PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
#define PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "pipesplit/ir/expr.h"
#include "pipesplit/support/dtype.h"

namespace pipesplit::codegen {

// The text of include/pipesplit/support/kernel_abi.h (embedded at build time).
const char* KernelAbiText();
// The helpers every generated source starts with (after the ABI text).
const char* KernelPrelude();

// The C++ function implementing the ABI for one PrimFunc (codegen_source.cc).
std::string EmitKernel(const std::string& name, const ir::PrimFuncNode& func, bool check_bounds);

// ---- C++ spellings (c_types.cc).

// A C string literal of `text`; `name` with every character outside [A-Za-z0-9] made '_'.
std::string Quote(const std::string& text);
std::string Sanitize(const std::string& name);
// Exact literals: an int64_t, a double (hex float, or inf / nan spelled through limits).
std::string IntLiteral(int64_t v);
std::string DoubleLiteral(double v);
bool IsHalf(DataType dt);
bool IsBF16(DataType dt);
bool IsBoolLike(DataType dt);  // bool, or uint of 1 bit
// The C++ type a value of `dt` is computed in (float16 and bfloat16: float) and the type an
// element is stored as (bool: uint8_t, float16 / bfloat16: their bits in uint16_t); nullopt
// for a dtype codegen does not support.
std::optional<std::string> CValueType(DataType dt);
std::optional<std::string> CStorageType(DataType dt);
// The ABI type code and bits of a supported dtype.
std::pair<int, int> AbiTypeOf(DataType dt);
// `e` (computed in float) rounded to the precision of a 16-bit float dtype; others unchanged.
std::string Round(DataType dt, const std::string& e);
// A stored element as a value, and a value as a stored element.
std::string FromStorage(DataType dt, const std::string& e);
std::string ToStorageValue(DataType dt, const std::string& storage_type, const std::string& e);

}  // namespace pipesplit::codegen

#endif  // PIPESPLIT_SRC_CODEGEN_CODEGEN_INTERNAL_H_
