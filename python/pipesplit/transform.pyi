"""Type stubs of pipesplit.transform (python/pipesplit/transform.py)."""

from typing import Iterable, List, Mapping, NamedTuple, Optional, Sequence, Union

from pipesplit import Module

class PassOption(NamedTuple):
    name: str
    type: str
    help: str
    required: bool

class PassInfo(NamedTuple):
    name: str
    summary: str
    options: List[PassOption]

def registered_passes() -> List[PassInfo]: ...

class Pass:
    def __init__(self, pipeline: str) -> None: ...
    @property
    def pipeline(self) -> str: ...
    def __call__(self, module: Module, *, verify_each: bool = ...) -> Module: ...

def pipeline(text: str) -> Pass: ...

class PipelineParallelRewrite(Pass):
    def __init__(self) -> None: ...

_Quantity = Union[int, float, str, None]

class AutoPipelineStages(Pass):
    def __init__(self, stages: int, memory: _Quantity = ..., bandwidth: _Quantity = ...,
                 assume: Union[Mapping[str, int], Sequence[str], str, None] = ..., *,
                 compute: _Quantity = ..., memory_bandwidth: _Quantity = ...,
                 max_crossing: Optional[int] = ..., replace: Optional[bool] = ...,
                 funcs: Optional[Iterable[str]] = ...) -> None: ...

class AttachPipelineStages(Pass):
    def __init__(self, stages: int, funcs: Optional[Iterable[str]] = ...) -> None: ...

class LegalizeOps(Pass):
    def __init__(self) -> None: ...

class Verify(Pass):
    def __init__(self) -> None: ...

class Sequential(Pass):
    passes: List[Pass]
    def __init__(self, passes: Sequence[Pass]) -> None: ...
