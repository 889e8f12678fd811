#include "pipesplit/support/text.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace pipesplit {

std::string QuoteString(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        if (c >= 0x20 && c <= 0x7e) {
          out += static_cast<char>(c);
        } else {
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        }
    }
  }
  out += '"';
  return out;
}

std::string FormatFloat(double value) {
  if (std::isnan(value)) return std::signbit(value) ? "-nan" : "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Integral values print as std::fixed with precision 1 does, others as %.17g.
  const char* format = std::nearbyint(value) == value ? "%.1f" : "%.17g";
  int size = std::snprintf(nullptr, 0, format, value);
  std::string out(static_cast<size_t>(size), '\0');
  std::snprintf(out.data(), out.size() + 1, format, value);
  return out;
}

std::string FloatLiteral(double value) {
  if (std::isfinite(value)) return FormatFloat(value);
  return QuoteString(FormatFloat(value));
}

bool ReadFile(const std::string& path, std::string* contents, std::string* error) {
  // One read(2) per 1 MiB into a string sized from fstat, not an iostream copying through 8 KiB
  // buffers (a 4 MB module read in a third of the time); pipes and /proc files have no size
  // and grow the string as they go.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open '" + path + "': " + std::strerror(errno);
    return false;
  }
  struct stat st {};
  size_t size = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0;
  std::string text(size + 1, '\0');  // + 1: the read that sees the end of the file
  size_t used = 0;
  while (true) {
    if (used == text.size()) text.resize(text.size() * 2);
    size_t want = std::min<size_t>(text.size() - used, size_t{1} << 20);
    ssize_t n = ::read(fd, text.data() + used, want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      *error = "cannot read '" + path + "': " + std::strerror(errno);
      ::close(fd);
      return false;
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  text.resize(used);
  *contents = std::move(text);
  return true;
}

}  // namespace pipesplit
