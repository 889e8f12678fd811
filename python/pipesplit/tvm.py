"""pipesplit's passes as TVM module passes, for a TVM / MLC-LLM pass pipeline.

Importable only where ``tvm`` is (``import pipesplit.tvm`` raises ImportError elsewhere)::

    from pipesplit.tvm import PipelineParallelRewrite
    mod = PipelineParallelRewrite()(mod)   # where MLC calls its own PipelineParallelRewrite

Each pass prints the module with fixed options, runs pipesplit on the text, and parses the
result back with TVM's parser (``_tvm_text`` says what travels how and what is refused).
"""

from typing import Any, Dict, Optional

import tvm  # noqa: F401  (ImportError where TVM is absent: the adapter needs it)
from tvm import ir as _ir

# TIR's Python package: tvm.tirx since early 2026, tvm.tir before.
_tir = tvm.tirx if hasattr(tvm, "tirx") else tvm.tir

from . import parse as _parse
from . import transform as _transform
from ._tvm_text import AdapterError, SCRIPT_OPTIONS, run_through_text

__all__ = ["PipelineParallelRewrite", "AutoPipelineStages", "AdapterError", "SCRIPT_OPTIONS"]


def _plain(value: Any) -> Any:
    """A TVM attribute value as plain Python when TVMScript can print it, else the object."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, _tir.IntImm):
        return int(value.value)
    if isinstance(value, _tir.FloatImm):
        return float(value.value)
    if isinstance(value, _ir.Array):
        return [_plain(v) for v in value]
    if isinstance(value, _ir.Map):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def _attrs_of(mod: Any) -> Dict[str, Any]:
    attrs = getattr(mod, "attrs", None)
    if attrs is None:
        return {}
    return {str(k): _plain(attrs[k]) for k in attrs.keys()}


def _with_attrs_only(mod: Any, attrs: Dict[str, Any]) -> Any:
    return tvm.IRModule(mod.functions, attrs=attrs or None, global_infos=mod.global_infos)


def _module_pass(pipesplit_pass: Any, name: str) -> Any:
    def run(mod: Any, _ctx: Any) -> Any:
        def transform(text: str) -> str:
            return pipesplit_pass(_parse(text, path="<tvm module>")).script(for_tvm_parser=True)

        return run_through_text(
            mod, _attrs_of(mod), transform, tvm.script.from_source, _with_attrs_only
        )

    return tvm.transform.module_pass(run, opt_level=0, name=name)


def PipelineParallelRewrite() -> Any:  # noqa: N802 (TVM's pass naming)
    """pipesplit's pipeline-parallel rewrite as a tvm.transform.Pass."""
    return _module_pass(_transform.PipelineParallelRewrite(), "pipesplit.PipelineParallelRewrite")


def AutoPipelineStages(stages: int, **options: Optional[Any]) -> Any:  # noqa: N802
    """pipesplit's auto-pipeline-stages (stage boundaries placed by its cost model)."""
    return _module_pass(
        _transform.AutoPipelineStages(stages=stages, **options), "pipesplit.AutoPipelineStages"
    )
