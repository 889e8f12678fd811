#include "pipesplit/support/diagnostic.h"

#include <algorithm>

namespace pipesplit {
namespace {

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
    case Severity::kNote:
      return "note";
  }
  return "error";
}

// Appends "  <line>\n  ^~~~\n" for the first line of `span`. Tabs are kept so the caret
// lines up; non-printable bytes are shown as '?'.
void AppendSourceExcerpt(Span span, std::string* out) {
  const SourceFile& file = SourceManager::Global().Get(span.file);
  LineCol pos = file.Locate(span.begin);
  std::string_view line = file.Line(pos.line);
  constexpr size_t kMaxExcerpt = 200;
  size_t col = pos.col - 1;
  size_t start = col > kMaxExcerpt / 2 && line.size() > kMaxExcerpt ? col - kMaxExcerpt / 2 : 0;
  std::string_view shown = line.substr(std::min(start, line.size()), kMaxExcerpt);
  std::string text_line = "  ";
  std::string caret_line = "  ";
  for (size_t i = 0; i < shown.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(shown[i]);
    text_line += (c == '\t' || (c >= 0x20 && c < 0x7f)) ? static_cast<char>(c) : '?';
  }
  for (size_t i = start; i < col && i - start < shown.size(); ++i) {
    caret_line += line[i] == '\t' ? '\t' : ' ';
  }
  caret_line += '^';
  size_t span_len = span.end > span.begin ? span.end - span.begin : 1;
  size_t line_rest = col < line.size() ? line.size() - col : 0;
  size_t tildes = std::min(span_len, line_rest);
  for (size_t i = 1; i < tildes && i < kMaxExcerpt; ++i) caret_line += '~';
  *out += text_line + "\n" + caret_line + "\n";
}

void AppendOne(Span span, Severity severity, const std::string& message, bool show_source,
               std::string* out) {
  *out += span.valid() ? SourceManager::Global().Describe(span) + ": " : std::string();
  *out += SeverityName(severity);
  *out += ": ";
  *out += message;
  *out += "\n";
  if (show_source && span.valid()) AppendSourceExcerpt(span, out);
}

std::string RenderAll(const std::vector<Diagnostic>& diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) out += Render(d);
  return out;
}

}  // namespace

std::string Render(const Diagnostic& diagnostic, bool show_source) {
  std::string out;
  AppendOne(diagnostic.span, diagnostic.severity, diagnostic.message, show_source, &out);
  for (const Note& note : diagnostic.notes) {
    AppendOne(note.span, Severity::kNote, note.message, show_source, &out);
  }
  return out;
}

DiagnosticError::DiagnosticError(Diagnostic diagnostic)
    : DiagnosticError(std::vector<Diagnostic>{std::move(diagnostic)}) {}

DiagnosticError::DiagnosticError(std::vector<Diagnostic> diagnostics)
    : Error(ErrorKind::kUser, RenderAll(diagnostics),
            diagnostics.empty() ? std::nullopt : std::optional<Span>(diagnostics[0].span)),
      diagnostics_(std::move(diagnostics)) {}

void ThrowError(Span span, std::string message) {
  Diagnostic d;
  d.span = span;
  d.message = std::move(message);
  throw DiagnosticError(std::move(d));
}

Diagnostic& DiagnosticList::Error(Span span, std::string message) {
  Diagnostic& d = diagnostics_.emplace_back();
  d.span = span;
  d.message = std::move(message);
  return d;
}

void DiagnosticList::ThrowIfAny() const {
  if (!diagnostics_.empty()) throw DiagnosticError(diagnostics_);
}

}  // namespace pipesplit
