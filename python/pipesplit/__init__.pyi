"""Type stubs of the pipesplit package (python/pipesplit/__init__.py)."""

import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union, overload

import numpy as np
import numpy.typing as npt

from pipesplit import _core, models as models, transform as transform
from pipesplit.errors import (Diagnostic as Diagnostic, DiagnosticError as DiagnosticError,
                              Error as Error, InternalError as InternalError,
                              RuntimeError as RuntimeError)

_Path = Union[str, os.PathLike[str]]
_Array = npt.ArrayLike
_Params = Union[_Path, Sequence[_Array], Mapping[str, _Array]]
_Inputs = Union[_Path, Mapping[str, Any], Sequence[Mapping[str, Any]]]

class Module:
    def __init__(self, handle: _core.Module) -> None: ...
    def script(
        self,
        syntax: Optional[str] = ...,
        tir_syntax: Optional[str] = ...,
        for_tvm_parser: bool = ...,
    ) -> str: ...
    @property
    def functions(self) -> List[str]: ...
    @property
    def syntax(self) -> str: ...
    def stages(self, entry: str = ...) -> List[str]: ...

def parse(text: Union[str, bytes], path: Optional[_Path] = ...) -> Module: ...
def check(module: Module) -> None: ...
def mlc_partition(module: Module,
                  param_names: Optional[Sequence[str]] = ...) -> Dict[str, Any]: ...
def build(module: Module, cache_dir: Optional[_Path] = ..., *, check_bounds: bool = ...,
          jobs: int = ...) -> str: ...
def read_safetensors(path: _Path) -> Dict[str, np.ndarray]: ...
@overload
def run(module: Module, params: _Params, inputs: _Inputs, groups: Optional[int] = ...,
        microbatches: None = ..., transport: str = ..., entry: str = ..., *,
        group_size: Optional[int] = ..., timeout: float = ..., cache_dir: Optional[_Path] = ...,
        check_bounds: bool = ..., threads_per_group: Optional[int] = ...,
        max_in_flight: int = ...) -> List[np.ndarray]: ...
@overload
def run(module: Module, params: _Params, inputs: _Inputs, groups: Optional[int] = ...,
        microbatches: int = ..., transport: str = ..., entry: str = ..., *,
        group_size: Optional[int] = ..., timeout: float = ..., cache_dir: Optional[_Path] = ...,
        check_bounds: bool = ..., threads_per_group: Optional[int] = ...,
        max_in_flight: int = ...) -> List[List[np.ndarray]]: ...

class VerifyResult(NamedTuple):
    identical: bool
    max_abs_diff: float
    reference: list
    split: list
    num_stages: int

def verify_split(module: Module, params: _Params, inputs: _Inputs, groups: Optional[int] = ...,
                 microbatches: Optional[int] = ..., entry: str = ...,
                 **run_options: Any) -> VerifyResult: ...

class Generation(NamedTuple):
    tokens: List[List[int]]
    logits: Optional[List[np.ndarray]]
    first_token_seconds: List[float]
    seconds: float
    prefill_steps: int
    decode_steps: int
    decode_tokens: int
    decode_seconds: float
    groups: int

def generate(module: Module, params: _Params, prompts: Sequence[Sequence[int]],
             max_new_tokens: int = ..., groups: Optional[int] = ..., *,
             batches_in_flight: int = ..., max_batch_size: Optional[int] = ...,
             temperature: float = ..., top_p: float = ..., seed: int = ...,
             threads_per_group: int = ..., timeout: float = ...,
             cache_dir: Optional[_Path] = ..., check_bounds: bool = ...,
             keep_logits: bool = ...) -> Generation: ...
