#include "pipesplit/support/dtype.h"

#include <charconv>

namespace pipesplit {
namespace {

// Parses a decimal integer that makes up all of `text`.
std::optional<int> ParseNumber(std::string_view text) {
  if (text.empty() || text.size() > 5) return std::nullopt;
  int value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
}

struct Prefix {
  std::string_view name;
  DataType::Code code;
  int fixed_bits;  // > 0: the name carries no bit count
};

constexpr Prefix kFixed[] = {
    {"float8_e4m3fn", DataType::Code::kFloat8E4M3FN, 8},
    {"float8_e5m2", DataType::Code::kFloat8E5M2, 8},
    {"float4_e2m1fn", DataType::Code::kFloat4E2M1FN, 4},
    {"bool", DataType::Code::kBool, 1},
    {"handle", DataType::Code::kHandle, 64},
};

constexpr Prefix kSized[] = {
    {"bfloat", DataType::Code::kBFloat, 0},
    {"float", DataType::Code::kFloat, 0},
    {"uint", DataType::Code::kUInt, 0},
    {"int", DataType::Code::kInt, 0},
};

}  // namespace

std::optional<DataType> DataType::Parse(std::string_view text) {
  if (text == "void" || text.empty()) return DataType::Void();
  uint16_t lanes = 1;
  if (size_t x = text.rfind('x');
      x != std::string_view::npos && x + 1 < text.size() &&
      text.substr(0, x).find_first_of("0123456789") != std::string_view::npos) {
    auto n = ParseNumber(text.substr(x + 1));
    if (!n) return std::nullopt;
    lanes = static_cast<uint16_t>(*n);
    text = text.substr(0, x);
  }
  for (const Prefix& p : kFixed) {
    if (text == p.name) return DataType(p.code, static_cast<uint16_t>(p.fixed_bits), lanes);
  }
  for (const Prefix& p : kSized) {
    if (text.substr(0, p.name.size()) == p.name) {
      auto bits = ParseNumber(text.substr(p.name.size()));
      if (!bits || *bits > 1024) return std::nullopt;
      return DataType(p.code, static_cast<uint16_t>(*bits), lanes);
    }
  }
  return std::nullopt;
}

std::string DataType::ToString() const {
  std::string out;
  switch (code_) {
    case Code::kVoid:
      return "void";
    case Code::kBool:
      out = "bool";
      break;
    case Code::kHandle:
      out = "handle";
      break;
    case Code::kFloat8E4M3FN:
      out = "float8_e4m3fn";
      break;
    case Code::kFloat8E5M2:
      out = "float8_e5m2";
      break;
    case Code::kFloat4E2M1FN:
      out = "float4_e2m1fn";
      break;
    case Code::kInt:
      out = "int" + std::to_string(bits_);
      break;
    case Code::kUInt:
      out = "uint" + std::to_string(bits_);
      break;
    case Code::kFloat:
      out = "float" + std::to_string(bits_);
      break;
    case Code::kBFloat:
      out = "bfloat" + std::to_string(bits_);
      break;
  }
  if (lanes_ != 1) out += "x" + std::to_string(lanes_);
  return out;
}

}  // namespace pipesplit
