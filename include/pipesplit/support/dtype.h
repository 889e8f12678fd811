// Scalar data types, spelled as TVM spells them ("float32", "int64", "bool", "float16x4",
// "float8_e4m3fn", "void", "handle").
#ifndef PIPESPLIT_SUPPORT_DTYPE_H_
#define PIPESPLIT_SUPPORT_DTYPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipesplit {

class DataType {
 public:
  enum class Code : uint8_t {
    kInt,
    kUInt,
    kFloat,
    kBFloat,
    kBool,
    kHandle,
    kVoid,
    kFloat8E4M3FN,
    kFloat8E5M2,
    kFloat4E2M1FN,
  };

  constexpr DataType() : code_(Code::kVoid), bits_(0), lanes_(1) {}
  constexpr DataType(Code code, uint16_t bits, uint16_t lanes = 1)
      : code_(code), bits_(bits), lanes_(lanes) {}

  static constexpr DataType Int(int bits) { return {Code::kInt, static_cast<uint16_t>(bits)}; }
  static constexpr DataType UInt(int bits) { return {Code::kUInt, static_cast<uint16_t>(bits)}; }
  static constexpr DataType Float(int bits) { return {Code::kFloat, static_cast<uint16_t>(bits)}; }
  static constexpr DataType BFloat16() { return {Code::kBFloat, 16}; }
  static constexpr DataType Bool() { return {Code::kBool, 1}; }
  static constexpr DataType Void() { return {Code::kVoid, 0}; }
  static constexpr DataType Handle() { return {Code::kHandle, 64}; }

  // Parses a dtype string; nullopt when it is not one.
  static std::optional<DataType> Parse(std::string_view text);
  std::string ToString() const;

  Code code() const { return code_; }
  int bits() const { return bits_; }
  int lanes() const { return lanes_; }
  // Storage bytes of one element (sub-byte types round up per element).
  int64_t bytes() const { return (static_cast<int64_t>(bits_) * lanes_ + 7) / 8; }

  bool is_void() const { return code_ == Code::kVoid; }
  bool is_bool() const { return code_ == Code::kBool; }
  bool is_int() const { return code_ == Code::kInt; }
  bool is_uint() const { return code_ == Code::kUInt; }
  bool is_integer() const { return is_int() || is_uint(); }
  bool is_float() const {
    return code_ == Code::kFloat || code_ == Code::kBFloat || code_ == Code::kFloat8E4M3FN ||
           code_ == Code::kFloat8E5M2 || code_ == Code::kFloat4E2M1FN;
  }

  friend bool operator==(const DataType&, const DataType&) = default;

 private:
  Code code_;
  uint16_t bits_;
  uint16_t lanes_;
};

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_DTYPE_H_
