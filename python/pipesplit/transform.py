"""Passes over modules, as the CLI's `pipesplit opt -p` runs them.

A pass object names one or more passes of the registry in the pipeline syntax of `opt -p`
(`auto-pipeline-stages{stages=4},pipeline-parallel-rewrite`) and is checked when made (a bad
option raises DiagnosticError). Calling it on a module returns the transformed module:

    split = transform.PipelineParallelRewrite()(module)
    both = transform.Sequential([transform.AutoPipelineStages(stages=2),
                                 transform.PipelineParallelRewrite()])(module)
"""

from typing import Iterable, List, Mapping, NamedTuple, Optional, Sequence, Union

from pipesplit import Module, _core


class PassOption(NamedTuple):
    """An option of a registered pass: type is "int", "bool", "str" or "list"."""

    name: str
    type: str
    help: str
    required: bool


class PassInfo(NamedTuple):
    """A registered pass (`pipesplit passes`)."""

    name: str
    summary: str
    options: List[PassOption]


def registered_passes() -> List[PassInfo]:
    """Every registered pass with its options, sorted by name."""
    return [PassInfo(name, summary, [PassOption(*o) for o in options])
            for name, summary, options in _core.passes()]


class Pass:
    """A pipeline of registered passes in the syntax of `pipesplit opt -p`."""

    def __init__(self, pipeline: str):
        _core.check_pipeline(pipeline)
        self._pipeline = pipeline

    @property
    def pipeline(self) -> str:
        """The pipeline text, as `pipesplit opt -p` takes it."""
        return self._pipeline

    def __call__(self, module: Module, *, verify_each: bool = False) -> Module:
        """Runs the passes on `module` (the GIL is released meanwhile)."""
        if not isinstance(module, Module):
            raise TypeError(f"expected a pipesplit.Module, got {type(module).__name__}")
        return Module(_core.run_pipeline(module._handle, self._pipeline, verify_each))

    def __repr__(self) -> str:
        return f"pipesplit.transform.pipeline({self._pipeline!r})"


def pipeline(text: str) -> Pass:
    """Any pipeline in the syntax of `pipesplit opt -p`."""
    return Pass(text)


def _value(name: str, value: object) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (list, tuple)):
        text = ";".join(_value(name, v) for v in value)
        return text
    else:
        text = str(value)
    if any(c in text for c in ",;{}") or not text.strip():
        raise ValueError(f"option {name}: value {text!r} cannot be written in a pipeline")
    return text


def _with_options(name: str, options: Mapping[str, object]) -> str:
    given = [f"{key}={_value(key, value)}" for key, value in options.items()
             if value is not None]
    return name + ("{" + ",".join(given) + "}" if given else "")


class PipelineParallelRewrite(Pass):
    """Split functions marked pipeline_parallel_stages=N into N stages and a dispatcher."""

    def __init__(self) -> None:
        super().__init__("pipeline-parallel-rewrite")


class AutoPipelineStages(Pass):
    """Place stage boundaries automatically (balanced, exact).

    On a module whose weights name transformer layers (MLC-LLM's), cuts fall only between
    layers, in the functions marked pipeline_parallel_stages, and the KV cache's layer
    partition is set. Quantities are numbers (bytes, bytes/s, FLOP/s) or strings with units ("24GB", "1.5GiB");
    assume bounds symbolic vars: {"n": 2048} or "n:2048;m:128".
    """

    def __init__(self, stages: int, memory: Union[int, str, None] = None,
                 bandwidth: Union[int, float, str, None] = None,
                 assume: Union[Mapping[str, int], Sequence[str], str, None] = None, *,
                 compute: Union[int, float, str, None] = None,
                 memory_bandwidth: Union[int, float, str, None] = None,
                 max_crossing: Optional[int] = None, replace: Optional[bool] = None,
                 funcs: Optional[Iterable[str]] = None):
        if isinstance(assume, Mapping):
            assume = [f"{var}:{bound}" for var, bound in assume.items()]
        elif isinstance(assume, str):
            assume = assume.split(";")
        super().__init__(_with_options("auto-pipeline-stages", {
            "stages": stages, "memory": memory, "bandwidth": bandwidth, "compute": compute,
            "memory-bandwidth": memory_bandwidth, "assume": assume,
            "max-crossing": max_crossing, "replace": replace,
            "funcs": list(funcs) if funcs is not None else None}))


class AttachPipelineStages(Pass):
    """Set pipeline_parallel_stages on the functions to split."""

    def __init__(self, stages: int, funcs: Optional[Iterable[str]] = None):
        super().__init__(_with_options("attach-pipeline-stages", {
            "stages": stages, "funcs": list(funcs) if funcs is not None else None}))


class LegalizeOps(Pass):
    """Lower high-level ops of known shape into R.call_tir of TIR kernels."""

    def __init__(self) -> None:
        super().__init__("legalize-ops")


class Verify(Pass):
    """Check that the module is well-formed (the module is not changed)."""

    def __init__(self) -> None:
        super().__init__("verify")


class Sequential(Pass):
    """Passes run in order."""

    def __init__(self, passes: Sequence[Pass]):
        if not passes:
            raise ValueError("Sequential needs at least one pass")
        for p in passes:
            if not isinstance(p, Pass):
                raise TypeError(f"expected a pipesplit.transform.Pass, got {type(p).__name__}")
        self.passes = list(passes)
        super().__init__(",".join(p.pipeline for p in passes))
