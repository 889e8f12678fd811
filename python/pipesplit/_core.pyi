"""Type stubs of pipesplit._core, the private C++ extension (src/python/)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

class Module:
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
    def has_kernels(self) -> bool: ...

class RunOptions:
    entry: str
    groups: int
    group_size: int
    timeout: float
    cache_dir: str
    check_bounds: bool
    threads_per_group: int
    max_in_flight: int
    def __init__(self) -> None: ...

def parse(text: str, path: str) -> Module: ...
def run_pipeline(module: Module, pipeline: str, verify_each: bool = ...) -> Module: ...
def check_pipeline(pipeline: str) -> None: ...
def passes() -> List[Tuple[str, str, List[Tuple[str, str, str, bool]]]]: ...
def check(module: Module) -> None: ...
def mlc_partition(module: Module, param_names: List[str]) -> str: ...
def build(module: Module, cache_dir: str, check_bounds: bool, jobs: int) -> str: ...
def run(module: Module, params: Union[str, Sequence[Any]], microbatches: Sequence[Sequence[Any]],
        options: RunOptions) -> List[List[Any]]: ...
def read_safetensors(path: str) -> Dict[str, Any]: ...
def entry_layout(module: Module, entry: str) -> Dict[str, Any]: ...
def write_safetensors(path: str, tensors: List[Tuple[str, Any]],
                      metadata: List[Tuple[str, str]]) -> None: ...

class GenerateOptions:
    groups: int
    batches_in_flight: int
    max_new_tokens: int
    max_batch_size: int
    temperature: float
    top_p: float
    seed: int
    threads_per_group: int
    timeout: float
    cache_dir: str
    check_bounds: bool
    keep_logits: bool
    def __init__(self) -> None: ...

def generate(module: Module, params: Union[str, Sequence[Any]], prompts: List[List[int]],
             options: GenerateOptions) -> Dict[str, Any]: ...

class LlamaConfig:
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    seq: int
    stages: int
    seed: int
    def __init__(self) -> None: ...

class ServingRequests:
    requests: int
    prompt_len: int
    def __init__(self) -> None: ...

def llama(config: LlamaConfig, form: str, requests: ServingRequests) -> Dict[str, Any]: ...
