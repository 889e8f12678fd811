// Internal invariant checks.
//
// PS_CHECK guards invariants of pipesplit itself: a failure is a bug in pipesplit, never a
// user mistake (user mistakes are Diagnostics, see diagnostic.h). A failed check throws
// InternalError, which the CLI reports as "internal error: ... (please report a bug)" with
// exit code 2.
#ifndef PIPESPLIT_SUPPORT_CHECK_H_
#define PIPESPLIT_SUPPORT_CHECK_H_

#include <sstream>
#include <stdexcept>
#include <string>

#include "pipesplit/support/error.h"

namespace pipesplit {

class InternalError : public Error {
 public:
  explicit InternalError(const std::string& what) : Error(ErrorKind::kInternal, what) {}
};

namespace detail {

// Collects the streamed message of a failed check and throws on destruction.
class CheckFailure {
 public:
  CheckFailure(const char* file, int line, const char* condition) {
    stream_ << file << ":" << line << ": check failed: " << condition;
  }
  CheckFailure(const CheckFailure&) = delete;
  CheckFailure& operator=(const CheckFailure&) = delete;
  [[noreturn]] ~CheckFailure() noexcept(false) { throw InternalError(stream_.str()); }

  template <typename T>
  CheckFailure& operator<<(const T& value) {
    if (first_) {
      stream_ << ": ";
      first_ = false;
    }
    stream_ << value;
    return *this;
  }

 private:
  std::ostringstream stream_;
  bool first_ = true;
};

// Throws the InternalError of an unreachable point (a node kind a switch cannot meet).
[[noreturn]] inline void Unreachable(const char* file, int line) {
  CheckFailure(file, line, "false") << "unreachable";
  throw InternalError("unreachable");  // not reached: the temporary above throws
}

// Lets `PS_CHECK(c) << msg` parse as a void expression.
struct Voidify {
  void operator&(const CheckFailure&) {}
};

}  // namespace detail
}  // namespace pipesplit

#define PS_CHECK(condition)                      \
  (condition) ? (void)0                          \
              : ::pipesplit::detail::Voidify() & \
                    ::pipesplit::detail::CheckFailure(__FILE__, __LINE__, #condition)

// Marks a point control never reaches; the compiler knows it does not return, so it may end a
// function whose switch covers every node kind.
#define PS_UNREACHABLE() ::pipesplit::detail::Unreachable(__FILE__, __LINE__)

#endif  // PIPESPLIT_SUPPORT_CHECK_H_
