// Syntax parser, part 3: literals — operator spellings, string literal decoding (prefixes and
// escapes) and integer / float literal decoding.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "pipesplit/support/diagnostic.h"
#include "src/script/syntax/parser_syntax.h"

namespace pipesplit::script {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

void AppendUtf8(uint32_t code, std::string* out) {
  if (code < 0x80) {
    out->push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (code >> 6)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (code >> 12)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (code >> 18)));
    out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

}  // namespace

const char* PyOpSpelling(PyOp op) {
  switch (op) {
    case PyOp::kAdd:
    case PyOp::kUAdd:
      return "+";
    case PyOp::kSub:
    case PyOp::kUSub:
      return "-";
    case PyOp::kMul:
      return "*";
    case PyOp::kDiv:
      return "/";
    case PyOp::kFloorDiv:
      return "//";
    case PyOp::kMod:
      return "%";
    case PyOp::kPow:
      return "**";
    case PyOp::kMatMul:
      return "@";
    case PyOp::kLShift:
      return "<<";
    case PyOp::kRShift:
      return ">>";
    case PyOp::kBitOr:
      return "|";
    case PyOp::kBitXor:
      return "^";
    case PyOp::kBitAnd:
      return "&";
    case PyOp::kInvert:
      return "~";
    case PyOp::kNot:
      return "not";
    case PyOp::kEq:
      return "==";
    case PyOp::kNotEq:
      return "!=";
    case PyOp::kLt:
      return "<";
    case PyOp::kLtE:
      return "<=";
    case PyOp::kGt:
      return ">";
    case PyOp::kGtE:
      return ">=";
    case PyOp::kIs:
      return "is";
    case PyOp::kIsNot:
      return "is not";
    case PyOp::kIn:
      return "in";
    case PyOp::kNotIn:
      return "not in";
    case PyOp::kAnd:
      return "and";
    case PyOp::kOr:
      return "or";
    case PyOp::kNone:
      break;
  }
  return "?";
}

void SyntaxParser::DecodeString(const Token& token, std::string* out) const {
  std::string_view s = TokenText(token);
  size_t p = 0;
  bool raw = false;
  bool bytes = false;
  while (p < s.size() && s[p] != '"' && s[p] != '\'') {
    char c = static_cast<char>(s[p] | 0x20);
    if (c == 'r') raw = true;
    if (c == 'b') bytes = true;
    if (c == 'f') ErrorAt(token, "f-strings are not supported");
    ++p;
  }
  char quote = s[p];
  size_t quote_len = (s.size() - p >= 6 && s[p + 1] == quote && s[p + 2] == quote) ? 3 : 1;
  size_t begin = p + quote_len;
  size_t end = s.size() - quote_len;
  if (raw) {
    out->append(s.substr(begin, end - begin));
    return;
  }
  for (size_t i = begin; i < end; ++i) {
    char c = s[i];
    if (c != '\\') {
      out->push_back(c);
      continue;
    }
    uint32_t at = token.begin + static_cast<uint32_t>(i);
    char e = s[++i];
    switch (e) {
      case '\n':
        break;
      case '\r':
        if (i + 1 < end && s[i + 1] == '\n') ++i;
        break;
      case '\\':
      case '\'':
      case '"':
        out->push_back(e);
        break;
      case 'a':
        out->push_back('\a');
        break;
      case 'b':
        out->push_back('\b');
        break;
      case 'f':
        out->push_back('\f');
        break;
      case 'n':
        out->push_back('\n');
        break;
      case 'r':
        out->push_back('\r');
        break;
      case 't':
        out->push_back('\t');
        break;
      case 'v':
        out->push_back('\v');
        break;
      case 'x': {
        int hi = i + 1 < end ? HexValue(s[i + 1]) : -1;
        int lo = i + 2 < end ? HexValue(s[i + 2]) : -1;
        if (hi < 0 || lo < 0) ErrorAt(at, at + 2, "invalid \\x escape: expected two hex digits");
        out->push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        break;
      }
      case 'u':
      case 'U': {
        if (bytes) {
          out->push_back('\\');
          out->push_back(e);
          break;
        }
        size_t digits = e == 'u' ? 4 : 8;
        uint32_t code = 0;
        for (size_t k = 1; k <= digits; ++k) {
          int v = i + k < end ? HexValue(s[i + k]) : -1;
          if (v < 0) {
            ErrorAt(at, at + 2,
                    fmt::format("invalid \\{} escape: expected {} hex digits", e, digits));
          }
          code = code * 16 + static_cast<uint32_t>(v);
        }
        if (code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF)) {
          ErrorAt(at, at + 2 + static_cast<uint32_t>(digits), "invalid unicode code point");
        }
        AppendUtf8(code, out);
        i += digits;
        break;
      }
      case 'N':
        if (!bytes) ErrorAt(at, at + 2, "\\N{...} escapes are not supported");
        out->push_back('\\');
        out->push_back(e);
        break;
      default:
        if (e >= '0' && e <= '7') {
          int value = e - '0';
          for (int k = 0; k < 2 && i + 1 < end && s[i + 1] >= '0' && s[i + 1] <= '7'; ++k) {
            value = value * 8 + (s[++i] - '0');
          }
          out->push_back(static_cast<char>(value & 0xFF));
        } else {
          out->push_back('\\');
          out->push_back(e);
        }
        break;
    }
  }
}

// ---- Literals ----

IntLiteralStatus DecodeIntLiteral(std::string_view text, int64_t* value) {
  // Most literals: a few decimal digits (18 cannot overflow an int64).
  if (!text.empty() && text.size() <= 18) {
    int64_t v = 0;
    size_t p = 0;
    for (; p < text.size() && text[p] >= '0' && text[p] <= '9'; ++p) v = v * 10 + (text[p] - '0');
    if (p == text.size()) {
      *value = v;
      return IntLiteralStatus::kOk;
    }
  }
  uint64_t base = 10;
  size_t p = 0;
  if (text.size() > 1 && text[0] == '0') {
    char c = static_cast<char>(text[1] | 0x20);
    if (c == 'x') base = 16, p = 2;
    if (c == 'o') base = 8, p = 2;
    if (c == 'b') base = 2, p = 2;
  }
  uint64_t v = 0;
  bool any = false;
  for (; p < text.size(); ++p) {
    char c = text[p];
    if (c == '_') continue;
    int d = HexValue(c);
    if (d < 0 || static_cast<uint64_t>(d) >= base) return IntLiteralStatus::kInvalid;
    if (v > (static_cast<uint64_t>(INT64_MAX) - static_cast<uint64_t>(d)) / base) {
      return IntLiteralStatus::kOverflow;
    }
    v = v * base + static_cast<uint64_t>(d);
    any = true;
  }
  if (!any) return IntLiteralStatus::kInvalid;
  *value = static_cast<int64_t>(v);
  return IntLiteralStatus::kOk;
}

std::optional<double> DecodeFloatLiteral(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (char c : text) {
    if (c == 'j' || c == 'J') return std::nullopt;
    if (c != '_') clean.push_back(c);
  }
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(clean.c_str(), &end);
  if (end == clean.c_str()) return std::nullopt;
  return v;
}

}  // namespace pipesplit::script
