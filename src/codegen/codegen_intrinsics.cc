// The TIR intrinsics (T.exp, T.pow, T.shift_left, T.reinterpret, ...) as C++ expressions over
// the prelude's helpers; float16 / bfloat16 results rounded after every operation.
#include <optional>
#include <string>
#include <vector>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/expr.h"
#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {
namespace {

[[noreturn]] void Fail(const std::string& kernel, const std::string& what) {
  throw CodegenError("kernel " + kernel + ": codegen does not support " + what);
}

}  // namespace

std::string EmitIntrinsic(const std::string& kernel, const ir::PrimCallNode& n,
                          const std::vector<std::string>& args) {
  auto Unsupported = [&](const std::string& what) { Fail(kernel, what); };
  auto ValueType = [&](DataType t) {
    std::optional<std::string> c = CValueType(t);
    if (!c) Unsupported("dtype " + t.ToString());
    return *c;
  };
  auto StorageType = [&](DataType t) {
    ValueType(t);
    return *CStorageType(t);
  };
  auto ToStorage = [&](DataType t, const std::string& e) {
    return ToStorageValue(t, StorageType(t), e);
  };
  const std::string& name = n.name();
  DataType dt = n.dtype();
  std::string vt = ValueType(dt);
  std::vector<std::string> cast_args;
  for (const std::string& a : args) cast_args.push_back("static_cast<" + vt + ">(" + a + ")");
  auto arity = [&](size_t k) {
    if (args.size() != k) {
      Unsupported("T." + name + " with " + std::to_string(args.size()) + " arguments");
    }
  };
  static const char* const kFloatUnary[][2] = {
      {"exp", "std::exp"},     {"exp2", "std::exp2"},       {"log", "std::log"},
      {"log2", "std::log2"},   {"log10", "std::log10"},     {"log1p", "std::log1p"},
      {"sqrt", "std::sqrt"},   {"tanh", "std::tanh"},       {"erf", "std::erf"},
      {"fabs", "std::fabs"},   {"round", "std::nearbyint"}, {"nearbyint", "std::nearbyint"},
      {"floor", "std::floor"}, {"ceil", "std::ceil"},       {"trunc", "std::trunc"},
      {"sin", "std::sin"},     {"cos", "std::cos"},         {"tan", "std::tan"},
      {"atan", "std::atan"},   {"rsqrt", "ps_rsqrt"},       {"sigmoid", "ps_sigmoid"},
      {"abs", "ps_abs"},       {"asin", "std::asin"},       {"acos", "std::acos"},
      {"sinh", "std::sinh"},   {"cosh", "std::cosh"},       {"asinh", "std::asinh"},
      {"acosh", "std::acosh"}, {"atanh", "std::atanh"}};
  for (const auto& [tir, fn] : kFloatUnary) {
    if (name != tir) continue;
    arity(1);
    if (!dt.is_float() && name != "abs") Unsupported("T." + name + " on " + dt.ToString());
    std::string f = fn;
    if (f.rfind("ps_", 0) == 0) f += "<" + vt + ">";
    return Round(dt, f + "(" + cast_args[0] + ")");
  }
  static const char* const kFloatBinary[][2] = {
      {"pow", "std::pow"},     {"fmod", "std::fmod"},         {"nextafter", "std::nextafter"},
      {"hypot", "std::hypot"}, {"copysign", "std::copysign"}, {"atan2", "std::atan2"}};
  for (const auto& [tir, fn] : kFloatBinary) {
    if (name != tir) continue;
    arity(2);
    if (!dt.is_float()) Unsupported("T." + name + " on " + dt.ToString());
    return Round(dt, std::string(fn) + "(" + cast_args[0] + ", " + cast_args[1] + ")");
  }
  if (name == "assume") {  // a fact for the simplifier; nothing to compute
    arity(1);
    return "true";
  }
  if (name == "exp10") {
    arity(1);
    return Round(dt, "std::pow(static_cast<" + vt + ">(10), " + cast_args[0] + ")");
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite") {
    arity(1);
    std::string ot = ValueType(n.args()[0]->dtype());
    if (!n.args()[0]->dtype().is_float()) return name == "isfinite" ? "true" : "false";
    return "std::" + name + "(static_cast<" + ot + ">(" + args[0] + "))";
  }
  if (name == "if_then_else") {
    arity(3);
    return "(static_cast<bool>(" + args[0] + ") ? " + cast_args[1] + " : " + cast_args[2] + ")";
  }
  if (name == "likely") {
    arity(1);
    return args[0];
  }
  bool integral = dt.is_integer() || IsBoolLike(dt);
  if (name == "shift_left" || name == "shift_right") {
    arity(2);
    if (!integral) Unsupported("T." + name + " on " + dt.ToString());
    return std::string(name == "shift_left" ? "ps_shl<" : "ps_shr<") + vt + ">(" + cast_args[0] +
           ", " + cast_args[1] + ")";
  }
  if (name == "bitwise_and" || name == "bitwise_or" || name == "bitwise_xor") {
    arity(2);
    if (!integral) Unsupported("T." + name + " on " + dt.ToString());
    const char* op = name == "bitwise_and" ? " & " : name == "bitwise_or" ? " | " : " ^ ";
    return "static_cast<" + vt + ">(" + cast_args[0] + op + cast_args[1] + ")";
  }
  if (name == "bitwise_not") {
    arity(1);
    if (!integral) Unsupported("T." + name + " on " + dt.ToString());
    return "static_cast<" + vt + ">(~" + cast_args[0] + ")";
  }
  if (name == "reinterpret") {
    if (args.empty()) arity(1);
    const ir::PrimExpr& v = n.args().back();
    if (StorageType(v->dtype()).size() == 0 || dt.bits() != v->dtype().bits()) {
      Unsupported("T.reinterpret from " + v->dtype().ToString() + " to " + dt.ToString());
    }
    return FromStorage(
        dt, "ps_bitcast<" + StorageType(dt) + ">(" + ToStorage(v->dtype(), args.back()) + ")");
  }
  Fail(kernel, "intrinsic T." + name);
}

}  // namespace pipesplit::codegen
