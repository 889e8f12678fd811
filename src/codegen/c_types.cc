// C++ spellings of TIR types and literals for the generated source.
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "src/codegen/codegen_internal.h"

namespace pipesplit::codegen {

// A C string literal of `text`.
std::string Quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\%03o", static_cast<unsigned char>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Sanitize(const std::string& name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  return out;
}

std::string IntLiteral(int64_t v) {
  if (v == std::numeric_limits<int64_t>::min()) return "(-INT64_C(9223372036854775807) - 1)";
  return "INT64_C(" + std::to_string(v) + ")";
}

std::string DoubleLiteral(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) {
    return v > 0 ? "std::numeric_limits<double>::infinity()"
                 : "(-std::numeric_limits<double>::infinity())";
  }
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%a", v);
  return std::string("(") + buf + ")";
}

namespace {
thread_local bool float64_evaluation = false;
}  // namespace

Float64Evaluation::Float64Evaluation(bool on) : previous_(float64_evaluation) {
  float64_evaluation = on;
}
Float64Evaluation::~Float64Evaluation() { float64_evaluation = previous_; }
bool InFloat64Evaluation() { return float64_evaluation; }

bool IsFloatingType(DataType dt) {
  return (dt.code() == DataType::Code::kFloat || dt.code() == DataType::Code::kBFloat) &&
         dt.lanes() == 1;
}

bool IsHalf(DataType dt) { return dt.code() == DataType::Code::kFloat && dt.bits() == 16; }
bool IsBF16(DataType dt) { return dt.code() == DataType::Code::kBFloat && dt.bits() == 16; }
bool IsBoolLike(DataType dt) { return dt.is_bool() || (dt.is_uint() && dt.bits() == 1); }

std::optional<std::string> CValueType(DataType dt) {
  if (dt.lanes() != 1) return std::nullopt;
  if (float64_evaluation && IsFloatingType(dt) && (dt.bits() == 16 || dt.bits() == 32)) {
    return "double";
  }
  if (IsBoolLike(dt)) return "bool";
  if (dt.is_int() || dt.is_uint()) {
    int b = dt.bits();
    if (b == 8 || b == 16 || b == 32 || b == 64) {
      return std::string(dt.is_int() ? "int" : "uint") + std::to_string(b) + "_t";
    }
    return std::nullopt;
  }
  if (dt.code() == DataType::Code::kFloat && dt.bits() == 32) return "float";
  if (dt.code() == DataType::Code::kFloat && dt.bits() == 64) return "double";
  if (IsHalf(dt) || IsBF16(dt)) return "float";
  return std::nullopt;
}

std::optional<std::string> CStorageType(DataType dt) {
  if (!CValueType(dt)) return std::nullopt;
  if (IsBoolLike(dt)) return "uint8_t";
  if (float64_evaluation && IsFloatingType(dt)) return "double";
  if (IsHalf(dt) || IsBF16(dt)) return "uint16_t";
  return CValueType(dt);
}

std::pair<int, int> AbiTypeOf(DataType dt) {
  if (IsBoolLike(dt)) return {1, 1};
  if (dt.is_int()) return {0, dt.bits()};
  if (dt.is_uint()) return {1, dt.bits()};
  if (float64_evaluation && IsFloatingType(dt)) return {2, 64};
  if (IsBF16(dt)) return {4, 16};
  return {2, dt.bits()};
}

std::string Round(DataType dt, const std::string& e) {
  if (float64_evaluation) return e;
  if (IsHalf(dt)) return "ps_rf16(" + e + ")";
  if (IsBF16(dt)) return "ps_rbf16(" + e + ")";
  return e;
}

namespace {

// The argument of `e` when `e` is one whole Round(dt, argument) expression.
std::optional<std::string> RoundedArgument(DataType dt, const std::string& e) {
  const std::string rounded = Round(dt, "");
  if (rounded.empty()) return std::nullopt;
  const std::string prefix = rounded.substr(0, rounded.size() - 1);  // "ps_rf16("
  if (e.size() <= prefix.size() || e.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  // The prefix's parenthesis must close at the end of `e`.
  int depth = 0;
  for (size_t i = prefix.size() - 1; i < e.size(); ++i) {
    if (e[i] == '(') ++depth;
    if (e[i] == ')' && --depth == 0) {
      if (i + 1 != e.size()) return std::nullopt;
      return e.substr(prefix.size(), i - prefix.size());
    }
  }
  return std::nullopt;
}

}  // namespace

std::string RoundOnce(DataType dt, const std::string& e) {
  return RoundedArgument(dt, e) ? e : Round(dt, e);
}

std::string FromStorage(DataType dt, const std::string& e) {
  if (float64_evaluation && IsFloatingType(dt)) return e;
  if (IsHalf(dt)) return "ps_h2f(" + e + ")";
  if (IsBF16(dt)) return "ps_bf2f(" + e + ")";
  if (IsBoolLike(dt)) return "(" + e + " != 0)";
  return e;
}

std::string ToStorageValue(DataType dt, const std::string& storage_type, const std::string& e) {
  // Converting a value rounded to the dtype gives the bits converting the unrounded value gives
  // (ps_f2h(ps_h2f(ps_f2h(x))) == ps_f2h(x)): the rounding is left out.
  const std::string v = RoundedArgument(dt, e).value_or(e);
  if (float64_evaluation && IsFloatingType(dt)) return "static_cast<double>(" + e + ")";
  if (IsHalf(dt)) return "ps_f2h(static_cast<float>(" + v + "))";
  if (IsBF16(dt)) return "ps_f2bf(static_cast<float>(" + v + "))";
  return "static_cast<" + storage_type + ">(" + e + ")";
}

}  // namespace pipesplit::codegen
