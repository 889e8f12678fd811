// User-facing diagnostics.
//
// A Diagnostic reports a user mistake (bad input text, ill-formed IR, bad flags) at a source
// location, rendered as
//
//   file:line:col: error: message
//     <the source line>
//     ^~~~~
//   file:line:col: note: related
//
// Messages are lowercase and carry no trailing period. Code that finds a user mistake throws
// DiagnosticError (or collects several in a DiagnosticList and throws them together); the
// CLI prints them and exits with status 1.
#ifndef PIPESPLIT_SUPPORT_DIAGNOSTIC_H_
#define PIPESPLIT_SUPPORT_DIAGNOSTIC_H_

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "pipesplit/support/error.h"
#include "pipesplit/support/source.h"

namespace pipesplit {

enum class Severity { kError, kWarning, kNote };

struct Note {
  Span span;
  std::string message;
};

struct Diagnostic {
  Severity severity = Severity::kError;
  Span span;
  std::string message;
  std::vector<Note> notes;

  Diagnostic& AddNote(Span note_span, std::string note_message) {
    notes.push_back({note_span, std::move(note_message)});
    return *this;
  }
};

// Renders one diagnostic with its notes. With `show_source`, the offending line is printed
// below the message with the span underlined.
std::string Render(const Diagnostic& diagnostic, bool show_source = true);

// An error carrying one or more diagnostics; what() is the rendering of all of them.
// Its location is the first diagnostic's span; Report() is what().
class DiagnosticError : public Error {
 public:
  explicit DiagnosticError(Diagnostic diagnostic);
  explicit DiagnosticError(std::vector<Diagnostic> diagnostics);
  std::string Report() const override { return what(); }

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

// Throws a DiagnosticError with one error at `span`.
[[noreturn]] void ThrowError(Span span, std::string message);

// Collects diagnostics, then throws them together.
class DiagnosticList {
 public:
  Diagnostic& Error(Span span, std::string message);
  bool empty() const { return diagnostics_.empty(); }
  size_t size() const { return diagnostics_.size(); }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Throws if any error was collected.
  void ThrowIfAny() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace pipesplit

#endif  // PIPESPLIT_SUPPORT_DIAGNOSTIC_H_
