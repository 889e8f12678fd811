// The root of every error pipesplit throws, so a caller (the CLI, the Python module) maps
// errors in one place.
//
// An Error is either a user error (bad input text, ill-formed IR, bad flags, inputs that do
// not fit, a failed compilation: the CLI exits with status 1) or an internal error (a broken
// invariant of pipesplit itself, PS_CHECK: status 2, "please report this bug"). It may carry
// the source location it is about. The families below it:
//   - DiagnosticError (diagnostic.h): located user errors in input text or IR;
//   - InternalError (check.h): failed internal checks;
//   - runtime::RuntimeError (runtime/tensor.h) and its kinds (ExecutionError, located at a
//     binding; WorkerError; ScheduleError; TransportAborted);
//   - codegen::CodegenError (codegen/codegen.h).
#ifndef PIPESPLIT_SUPPORT_ERROR_H_
#define PIPESPLIT_SUPPORT_ERROR_H_

#include <exception>
#include <optional>
#include <stdexcept>
#include <string>

#include "pipesplit/support/source.h"

namespace pipesplit {

enum class ErrorKind { kUser, kInternal };

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& what, std::optional<Span> location = std::nullopt)
      : std::runtime_error(what), kind_(kind), location_(location) {}

  ErrorKind kind() const { return kind_; }
  bool internal() const { return kind_ == ErrorKind::kInternal; }
  // The source location the error is about, when it has one.
  const std::optional<Span>& location() const { return location_; }
  // The process exit status for this error: 1 for a user error, 2 for an internal one.
  int exit_code() const { return internal() ? 2 : 1; }
  // The text a command-line tool prints for it, ending in a newline: "error: <what>", the
  // rendered diagnostics of a DiagnosticError, or "internal error: <what>" and a request to
  // report the bug.
  virtual std::string Report() const;

 private:
  ErrorKind kind_;
  std::optional<Span> location_;
};

// The exception being handled (call only inside a catch block) as Report() text and exit
// status: an Error as above, std::bad_alloc as a user error ("out of memory"), anything else as
// an internal error.
struct ErrorReport {
  std::string text;
  int exit_code = 1;
};
ErrorReport ReportCurrentException();

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_ERROR_H_
