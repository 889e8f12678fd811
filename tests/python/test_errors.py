"""Errors from Python: located DiagnosticErrors with the CLI's rendered text, and the
exception hierarchy (DiagnosticError, RuntimeError, InternalError under pipesplit.Error)."""

import builtins

import pytest

import pipesplit
from pipesplit import transform

BAD = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        y: R.Tensor((2, 3), dtype="float32") = R.add(x, undefined_name)
        return y
'''


def test_hierarchy():
    for cls in (pipesplit.DiagnosticError, pipesplit.RuntimeError, pipesplit.InternalError):
        assert issubclass(cls, pipesplit.Error)
        assert issubclass(cls, Exception)
    assert not issubclass(pipesplit.InternalError, pipesplit.DiagnosticError)
    assert not issubclass(pipesplit.DiagnosticError, pipesplit.InternalError)
    assert pipesplit.RuntimeError is not builtins.RuntimeError


def test_syntax_error_is_located(cli, tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(BAD)
    with pytest.raises(pipesplit.DiagnosticError) as info:
        pipesplit.parse(BAD, path=str(path))
    error = info.value
    line = BAD.splitlines().index(next(s for s in BAD.splitlines() if "undefined_name" in s)) + 1
    assert (error.file, error.line) == (str(path), line)
    assert error.col == BAD.splitlines()[line - 1].index("undefined_name") + 1
    assert "undefined_name" in error.message
    assert str(error).startswith(f"{path}:{error.line}:{error.col}: error: {error.message}")
    # The rendered text is the CLI's, word for word.
    result = cli("fmt", path, check=False)
    assert result.returncode == 1
    assert result.stderr == str(error) + "\n"


def test_bad_pipeline_option_is_located():
    with pytest.raises(pipesplit.DiagnosticError) as info:
        transform.pipeline("pipeline-parallel-rewrite,auto-pipeline-stages{stages=x}")
    assert info.value.file == "<pipeline>"
    assert info.value.line == 1
    assert info.value.col == len("pipeline-parallel-rewrite,auto-pipeline-stages{stages=") + 1
    with pytest.raises(pipesplit.DiagnosticError, match="unknown pass 'no-such-pass'"):
        transform.pipeline("no-such-pass")
    with pytest.raises(pipesplit.DiagnosticError, match="stages must be at least 2"):
        transform.AutoPipelineStages(stages=1)


ILL_FORMED = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((8,), "float32"):
        R.print(x, format="a")
        return x
'''


def test_check_reports_every_problem_as_the_cli_does(cli, tmp_path):
    pipesplit.check(pipesplit.parse(BAD.replace("undefined_name", "x")))  # well-formed
    path = tmp_path / "ill.py"
    path.write_text(ILL_FORMED)
    with pytest.raises(pipesplit.DiagnosticError) as info:
        pipesplit.check(pipesplit.parse(ILL_FORMED, path=str(path)))
    error = info.value
    assert len(error.diagnostics) == 2
    assert (error.line, error.col) == (error.diagnostics[0].line, error.diagnostics[0].col)
    assert {(d.line, d.col) for d in error.diagnostics} == {(5, 9), (3, 5)}
    result = cli("check", path, check=False)
    assert result.returncode == 1
    assert result.stderr == str(error) + "\n"


def test_run_errors_are_runtime_errors():
    mod = pipesplit.parse(BAD.replace("undefined_name", "x"))
    with pytest.raises(pipesplit.RuntimeError, match="no tensor named 'x'"):
        pipesplit.run(mod, [], {})
    with pytest.raises(ValueError, match="only 'threads'"):
        pipesplit.run(mod, [], {}, transport="mpi")
