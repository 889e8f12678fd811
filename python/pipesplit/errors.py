"""The exceptions pipesplit raises (the C++ core maps its errors to them in one place).

    Error                  the root of them all (a user error without a finer class, e.g. a
                           kernel that does not compile)
    ├── DiagnosticError    located errors in input text or IR: str() is the rendered text
    │                      ("file:line:col: error: message", the line, a caret); .file, .line,
    │                      .col and .message are the first diagnostic's, .diagnostics all of them
    ├── RuntimeError       errors of a run: inputs that do not fit, a failing worker, a
    │                      schedule that cannot run (not the builtin RuntimeError)
    └── InternalError      a bug in pipesplit (please report it)
"""

from typing import List, NamedTuple, Optional, Sequence, Tuple


class Diagnostic(NamedTuple):
    """One located message; file is None (line and col 0) when it has no location."""

    file: Optional[str]
    line: int
    col: int
    message: str
    severity: str = "error"


class Error(Exception):
    """Root of the errors pipesplit raises."""


class DiagnosticError(Error):
    """Located user errors in input text or IR (a parse error, ill-formed IR, a bad pass)."""

    def __init__(self, text: str,
                 diagnostics: Sequence[Tuple[Optional[str], int, int, str, str]] = ()):
        super().__init__(text)
        self.diagnostics: List[Diagnostic] = [Diagnostic(*d) for d in diagnostics]
        first = self.diagnostics[0] if self.diagnostics else Diagnostic(None, 0, 0, text)
        self.file: Optional[str] = first.file
        self.line: Optional[int] = first.line if first.file is not None else None
        self.col: Optional[int] = first.col if first.file is not None else None
        self.message: str = first.message


class RuntimeError(Error):  # pylint: disable=redefined-builtin
    """An error of a run: bad inputs or weights, a failing worker, a bad schedule."""


class InternalError(Error):
    """A broken invariant of pipesplit itself: a bug to report."""
