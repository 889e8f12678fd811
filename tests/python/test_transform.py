"""pipesplit.transform against the CLI's `opt -p`: the same passes, the same option syntax,
the same printed result."""

import pytest

import pipesplit
from conftest import SOURCE_DIR
from pipesplit import transform

GOLDEN = SOURCE_DIR / "tests" / "transform" / "golden"


def _opt(cli, path, pipeline):
    return cli("opt", path, "-p", pipeline).stdout


def test_rewrite_equals_cli_on_the_llama(cli, llama):
    path = llama / "model.py"
    mod = pipesplit.parse(path.read_text(), path=str(path))
    split = transform.PipelineParallelRewrite()(mod)
    assert split.script() == _opt(cli, path, "pipeline-parallel-rewrite")
    assert split.script() == (llama / "model.split.py").read_text()
    assert len(split.stages()) == 2
    assert mod.stages() == []  # the input is left as it was
    pipesplit.check(split)


@pytest.mark.parametrize("name", sorted(p.name for p in GOLDEN.glob("*.input.py")))
def test_golden_inputs_match_cli(cli, name):
    path = GOLDEN / name
    mod = pipesplit.parse(path.read_text(), path=str(path))
    try:
        expected = _opt(cli, path, "pipeline-parallel-rewrite")
    except Exception:  # pylint: disable=broad-except
        with pytest.raises(pipesplit.DiagnosticError):
            transform.PipelineParallelRewrite()(mod)
        return
    assert transform.PipelineParallelRewrite()(mod).script() == expected


def test_auto_stages_then_rewrite_equals_cli(cli, llama):
    path = llama / "model.py"
    mod = pipesplit.parse(path.read_text(), path=str(path))
    passes = transform.Sequential([
        transform.AutoPipelineStages(stages=2, memory="1GiB", bandwidth="25GB", replace=True),
        transform.PipelineParallelRewrite()])
    assert passes.pipeline == ("auto-pipeline-stages{stages=2,memory=1GiB,bandwidth=25GB,"
                               "replace=true},pipeline-parallel-rewrite")
    assert passes(mod).script() == _opt(cli, path, passes.pipeline)


def test_option_spelling():
    assert transform.AutoPipelineStages(4).pipeline == "auto-pipeline-stages{stages=4}"
    assert transform.AutoPipelineStages(2, assume={"n": 2048, "m": 128}).pipeline == (
        "auto-pipeline-stages{stages=2,assume=n:2048;m:128}")
    assert transform.AutoPipelineStages(2, assume="n:2048;m:128").pipeline == (
        "auto-pipeline-stages{stages=2,assume=n:2048;m:128}")
    assert transform.AttachPipelineStages(2, funcs=["main"]).pipeline == (
        "attach-pipeline-stages{stages=2,funcs=main}")
    with pytest.raises(ValueError):
        transform.AutoPipelineStages(2, memory="1GB,stages=3")
    names = [p.name for p in transform.registered_passes()]
    assert "pipeline-parallel-rewrite" in names and "auto-pipeline-stages" in names
    for info in transform.registered_passes():
        transform.pipeline(info.name if not any(o.required for o in info.options)
                           else info.name + "{stages=2}")


def test_pass_rejects_non_modules():
    with pytest.raises(TypeError):
        transform.PipelineParallelRewrite()("not a module")
