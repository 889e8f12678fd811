// The one place where pipesplit's C++ errors become Python exceptions (the classes of
// python/pipesplit/errors.py), as the CLI maps them to exit codes in one place:
//   DiagnosticError           -> pipesplit.DiagnosticError (rendered text; file, line, col,
//                                message of each diagnostic)
//   runtime::RuntimeError     -> pipesplit.RuntimeError (worker, schedule, input errors)
//   internal errors, and any other C++ exception -> pipesplit.InternalError
//   other user errors (a failed kernel compilation) -> pipesplit.Error
// The text of each is pipesplit::ReportCurrentException()'s, without its final newline.
// pybind11's own exceptions and Python errors raised inside a call pass through unchanged;
// std::bad_alloc stays MemoryError.
#include <exception>
#include <new>
#include <string>

#include "pipesplit/runtime/tensor/tensor.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/error.h"
#include "src/python/core.h"

namespace pipesplit::python {
namespace {

// (file, line, col, message, severity) of a diagnostic; file is None and line and col are 0
// when it has no location.
py::tuple DiagnosticTuple(const Diagnostic& d) {
  static const char* const kSeverity[] = {"error", "warning", "note"};
  const char* severity = kSeverity[static_cast<int>(d.severity)];
  if (!d.span.valid()) return py::make_tuple(py::none(), 0, 0, d.message, severity);
  const SourceManager& sources = SourceManager::Global();
  LineCol at = sources.Locate(d.span);
  return py::make_tuple(sources.Get(d.span.file).name(), at.line, at.col, d.message, severity);
}

// Sets the Python exception for the C++ exception being handled (call only inside a catch).
void SetPythonError() {
  ErrorReport report = ReportCurrentException();
  std::string text = report.text;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  py::module_ errors = py::module_::import("pipesplit.errors");
  py::object exception;
  try {
    throw;
  } catch (const DiagnosticError& e) {
    py::list diagnostics;
    for (const Diagnostic& d : e.diagnostics()) diagnostics.append(DiagnosticTuple(d));
    exception = errors.attr("DiagnosticError")(text, diagnostics);
  } catch (const runtime::RuntimeError&) {
    exception = errors.attr("RuntimeError")(text);
  } catch (const Error& e) {
    exception = errors.attr(e.internal() ? "InternalError" : "Error")(text);
  } catch (...) {
    exception = errors.attr("InternalError")(text);
  }
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception.ptr())), exception.ptr());
}

}  // namespace

void RegisterErrorTranslator() {
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const py::error_already_set&) {
      throw;
    } catch (const py::builtin_exception&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      SetPythonError();
    }
  });
}

}  // namespace pipesplit::python
