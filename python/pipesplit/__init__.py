"""pipesplit from Python: parse and print Relax TVMScript, run passes, check, build kernels, and
run modules on worker groups with NumPy arrays in and out.

    import pipesplit
    from pipesplit import transform

    mod = pipesplit.parse(open("model.py").read(), path="model.py")
    split = transform.PipelineParallelRewrite()(mod)
    print(len(split.stages()), "stages")
    outputs = pipesplit.run(split, "params.safetensors", {"x": x}, groups=2)

Everything is done by the C++ core (the private extension pipesplit._core) as the CLI does it,
with the GIL released. Errors are the classes of pipesplit.errors.
"""

from pkgutil import extend_path

# The extension is built into <build>/python/pipesplit/, beside this source folder: with both
# python/ folders on sys.path the package spans them.
__path__ = extend_path(__path__, __name__)

# pylint: disable=wrong-import-position
import os
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Sequence, Union

try:
    from pipesplit import _core
except ImportError as error:  # pragma: no cover
    raise ImportError("pipesplit's C++ extension pipesplit._core is not built or not on the "
                      "path: `make build`, then PYTHONPATH=python:build/python") from error
from pipesplit.errors import (Diagnostic, DiagnosticError, Error, InternalError,
                              RuntimeError)  # pylint: disable=redefined-builtin

__all__ = ["Module", "parse", "check", "mlc_partition", "build", "run", "verify_split",
           "generate", "Generation", "read_safetensors", "VerifyResult", "Error",
           "DiagnosticError", "RuntimeError", "InternalError", "Diagnostic", "transform",
           "models"]


class Module:
    """An IRModule: Relax functions and TIR kernels (immutable; passes return new modules)."""

    __slots__ = ("_handle",)

    def __init__(self, handle: "_core.Module"):
        self._handle = handle

    def script(
        self,
        syntax: Optional[str] = None,
        tir_syntax: Optional[str] = None,
        for_tvm_parser: bool = False,
    ) -> str:
        """The module as `pipesplit fmt` prints it: TVM's canonical text, byte for byte.

        syntax: "classic" or "current" (default: the one it was read in); tir_syntax: "block"
        or "sblock" (default: as read); for_tvm_parser: rename the vars a kernel declares
        under a module-level TypeVar's name (n -> n_1), which TVM's own parser cannot read back
        (`fmt --for-tvm-parser`).
        """
        return self._handle.script(syntax, tir_syntax, for_tvm_parser)

    @property
    def functions(self) -> List[str]:
        """Names of the module's functions (Relax and TIR), in module order."""
        return self._handle.functions

    @property
    def syntax(self) -> str:
        """The TVMScript syntax the module was read in: "classic" or "current"."""
        return self._handle.syntax

    def stages(self, entry: str = "main") -> List[str]:
        """The stage functions `entry` dispatches to, in group order ([] when not split)."""
        return list(_core.entry_layout(self._handle, entry)["stages"])

    def __str__(self) -> str:
        return self.script()

    def __repr__(self) -> str:
        return f"<pipesplit.Module: {', '.join(self.functions)}>"


def parse(text: str, path: Optional[str] = None) -> Module:
    """Parses one TVMScript `@I.ir_module` (classic or current syntax).

    path names the text in diagnostics (default "<string>"); errors raise DiagnosticError.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    return Module(_core.parse(text, "<string>" if path is None else os.fspath(path)))


def check(module: Module) -> None:
    """The CLI's `check`: well-formedness and the pairing of sends and receives of staged
    functions. Raises DiagnosticError listing every problem."""
    _core.check(module._handle)


def build(module: Module, cache_dir: Optional[str] = None, *, check_bounds: bool = False,
          jobs: int = 0) -> str:
    """Compiles the module's TIR kernels into one shared library (through the kernel cache,
    default as the CLI's --kernel-cache) and returns its path."""
    return _core.build(module._handle, os.fspath(cache_dir) if cache_dir else "", check_bounds,
                       jobs)


def read_safetensors(path: str) -> Dict[str, Any]:
    """The tensors of a safetensors file by name: read-only arrays viewing the mapped file."""
    return _core.read_safetensors(os.fspath(path))


# ---- running ----

Inputs = Union[str, "os.PathLike[str]", Mapping[str, Any]]


def _array(value: Any) -> Any:
    import numpy as np  # pylint: disable=import-outside-toplevel
    array = np.asarray(value)
    # Contiguous aligned arrays pass as they are (no copy); others are copied once here.
    return np.require(array, requirements=["C", "A"])


def _weights(params: Any) -> Any:
    if isinstance(params, (str, os.PathLike)):
        return os.fspath(params)
    if isinstance(params, Mapping):
        names = [f"param_{i}" for i in range(len(params))]
        if sorted(params) != sorted(names):
            raise ValueError("params as a dict must be named param_0 .. param_<n-1> "
                             "(packed_params fields); pass a list or a safetensors path")
        params = [params[name] for name in names]
    return [_array(p) for p in params]


def _microbatches(module: Module, entry: str, inputs: Any,
                  microbatches: Optional[int]) -> List[list]:
    """The input lists of each micro-batch, read as the CLI's --inputs reads them."""
    layout = _core.entry_layout(module._handle, entry)
    where = "inputs"
    if isinstance(inputs, (str, os.PathLike)):
        where = os.fspath(inputs)
        inputs = read_safetensors(where)
    if microbatches is not None and microbatches < 1:
        raise ValueError("microbatches must be at least 1")
    if microbatches is not None and not isinstance(inputs, Mapping):
        per_batch = list(inputs)  # a list of M dicts named as the parameters
        if len(per_batch) != microbatches:
            raise ValueError(f"{len(per_batch)} input dicts for {microbatches} micro-batches")
        tables = [(dict(d), "") for d in per_batch]
    elif microbatches is not None:
        tables = [(dict(inputs), f".{k}") for k in range(microbatches)]
    else:
        tables = [(dict(inputs), "")]
    result, expected = [], set()
    for k, (table, suffix) in enumerate(tables):
        values = []
        for param, is_shape in layout["inputs"]:
            name = param + suffix
            if name not in table:
                batch = f" in micro-batch {k}" if microbatches is not None else ""
                raise RuntimeError(f"{where}: no tensor named '{name}' for parameter '{param}' "
                                   f"of '{entry}'{batch}")
            expected.add(name)
            value = table[name]
            if is_shape:
                values.append(tuple(_shape_dims(value)))
            else:
                values.append(_array(value))
        result.append(values)
    # Every tensor given must be an input (one shared table, or each of M tables).
    for table, suffix in tables:
        allowed = expected if suffix else {param for param, _ in layout["inputs"]}
        extra = sorted(set(table) - allowed)
        if extra:
            raise RuntimeError(f"{where}: tensor '{extra[0]}' is not a parameter of '{entry}'")
    return result


def _shape_dims(value: Any) -> Sequence[int]:
    import numpy as np  # pylint: disable=import-outside-toplevel
    array = np.asarray(value)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise RuntimeError(f"a shape parameter takes a 1-D integer tensor or a tuple, got "
                           f"{array.dtype}{list(array.shape)}")
    return [int(d) for d in array]


def run(module: Module, params: Any, inputs: Any, groups: Optional[int] = None,
        microbatches: Optional[int] = None, transport: str = "threads", entry: str = "main", *,
        group_size: Optional[int] = None, timeout: float = 60.0,
        cache_dir: Optional[str] = None, check_bounds: bool = False,
        threads_per_group: Optional[int] = None, max_in_flight: int = 2) -> list:
    """Runs `entry` on worker groups of threads, as `pipesplit run` does, and returns its
    outputs (tuples flattened) as read-only NumPy arrays.

    params: packed_params as a safetensors path, a list of arrays (field i) or a dict named
    param_<i>. inputs: a safetensors path or a dict of arrays named as the parameters (a shape
    parameter: a tuple or a 1-D integer array). With microbatches=M, inputs are named
    <param>.<k> (or are a list of M dicts) and the result is a list of M output lists.
    groups defaults to the module's stages. Kernels are built on the fly through the cache.

    C-contiguous arrays of a dtype the runtime stores (float32, ...) are not copied: the
    workers read the arrays' own buffers (do not write to them during the run), and outputs
    view the runtime's buffers.
    """
    if transport != "threads":
        raise ValueError(f"transport {transport!r}: only 'threads' runs from Python (run MPI "
                         "jobs with the CLI under mpirun)")
    options = _core.RunOptions()
    options.entry = entry
    options.groups = groups or 0
    options.group_size = group_size or 0
    options.timeout = float(timeout)
    options.cache_dir = os.fspath(cache_dir) if cache_dir else ""
    options.check_bounds = check_bounds
    options.threads_per_group = threads_per_group or 0
    options.max_in_flight = max_in_flight
    batches = _microbatches(module, entry, inputs, microbatches)
    outputs = _core.run(module._handle, _weights(params), batches, options)
    return outputs if microbatches is not None else outputs[0]


class VerifyResult(NamedTuple):
    """What verify_split found: identical is True when every output matched bit for bit."""

    identical: bool
    max_abs_diff: float
    reference: list  # the unsplit outputs (per micro-batch with microbatches=M)
    split: list  # the split outputs, likewise
    num_stages: int

    def __bool__(self) -> bool:
        return self.identical


def _max_abs_diff(a: Any, b: Any) -> float:
    import numpy as np  # pylint: disable=import-outside-toplevel
    if a.size == 0:
        return 0.0
    x, y = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(x) & np.isnan(y)
    diff = np.where(both_nan, 0.0, np.abs(x - y))
    return float(np.max(np.where(np.isnan(diff), np.inf, diff)))


def verify_split(module: Module, params: Any, inputs: Any, groups: Optional[int] = None,
                 microbatches: Optional[int] = None, entry: str = "main",
                 **run_options: Any) -> VerifyResult:
    """The CLI's `verify-split`: runs `module` unsplit on one worker (each micro-batch alone)
    and split by pipeline-parallel-rewrite on its groups; compares the outputs bit for bit."""
    from pipesplit import transform  # pylint: disable=import-outside-toplevel
    split = transform.Sequential([transform.PipelineParallelRewrite(), transform.Verify()])(
        module)
    if isinstance(inputs, (str, os.PathLike)):
        inputs = read_safetensors(inputs)
    if microbatches is None:
        reference = [run(module, params, inputs, groups=1, entry=entry, **run_options)]
    elif isinstance(inputs, Mapping):
        reference = [run(module, params, {n[:-len(f".{k}")]: v for n, v in inputs.items()
                                          if n.endswith(f".{k}")}, groups=1, entry=entry,
                         **run_options) for k in range(microbatches)]
    else:
        reference = [run(module, params, d, groups=1, entry=entry, **run_options)
                     for d in inputs]
    staged = run(split, params, inputs, groups=groups, microbatches=microbatches, entry=entry,
                 **run_options)
    staged_lists = staged if microbatches is not None else [staged]
    a = [x for outputs in reference for x in outputs]
    b = [x for outputs in staged_lists for x in outputs]
    identical = len(a) == len(b)
    max_diff = 0.0
    for x, y in zip(a, b):
        if x.dtype != y.dtype or x.shape != y.shape:
            identical = False
            break
        max_diff = max(max_diff, _max_abs_diff(x, y))
        identical = identical and x.tobytes() == y.tobytes()
    return VerifyResult(identical, max_diff,
                        reference if microbatches is not None else reference[0],
                        staged, max(1, len(split.stages(entry))))


class Generation(NamedTuple):
    """What generate produced: per request its tokens (and, with keep_logits, a float32 array
    of the logits each token was sampled from, steps x vocab), and the run's statistics."""

    tokens: List[List[int]]
    logits: Optional[List[Any]]
    first_token_seconds: List[float]
    seconds: float
    prefill_steps: int
    decode_steps: int
    decode_tokens: int
    decode_seconds: float
    groups: int


def generate(module: Module, params: Any, prompts: Sequence[Sequence[int]],
             max_new_tokens: int = 16, groups: Optional[int] = None, *,
             batches_in_flight: int = 1, max_batch_size: Optional[int] = None,
             temperature: float = 0.0, top_p: float = 1.0, seed: int = 0,
             threads_per_group: int = 1, timeout: float = 60.0,
             cache_dir: Optional[str] = None, check_bounds: bool = False,
             keep_logits: bool = False) -> Generation:
    """`pipesplit generate` from Python: generates up to max_new_tokens tokens for each prompt
    (a list of token ids) from a module in MLC's serving form (embed, batch_prefill,
    batch_decode, create_paged_kv_cache) on worker groups of threads.

    params: packed_params as a safetensors path, a list of arrays or a dict named param_<i>.
    groups defaults to the module's stages; an unsplit module with stage markers is split by
    the pipeline-parallel rewrite (and verified) when run on more than one group. Greedy at
    temperature 0; otherwise temperature and top-p sampling seeded by (seed, request, step).
    """
    from pipesplit import transform as _transform  # pylint: disable=import-outside-toplevel
    if groups is not None and groups > 1 and not module.stages("batch_decode"):
        module = _transform.Sequential([_transform.PipelineParallelRewrite(),
                                        _transform.Verify()])(module)
    options = _core.GenerateOptions()
    options.groups = groups or 0
    options.batches_in_flight = batches_in_flight
    options.max_new_tokens = max_new_tokens
    options.max_batch_size = max_batch_size or 0
    options.temperature = float(temperature)
    options.top_p = float(top_p)
    options.seed = seed
    options.threads_per_group = threads_per_group
    options.timeout = float(timeout)
    options.cache_dir = os.fspath(cache_dir) if cache_dir else ""
    options.check_bounds = check_bounds
    options.keep_logits = keep_logits
    ids = [[int(t) for t in p] for p in prompts]
    out = _core.generate(module._handle, _weights(params), ids, options)
    return Generation(out["tokens"], out.get("logits"), out["first_token_seconds"],
                      out["seconds"], out["prefill_steps"], out["decode_steps"],
                      out["decode_tokens"], out["decode_seconds"], out["groups"])


from pipesplit import transform  # noqa: E402  pylint: disable=wrong-import-position
from pipesplit import models  # noqa: E402  pylint: disable=wrong-import-position


def mlc_partition(module: Module, param_names: Optional[Sequence[str]] = None) -> Dict[str, Any]:
    """What MLC-LLM's loader and KV cache need of `module` (stage markers in place) once the
    pipeline-parallel rewrite splits it, taken from the split itself (so no weight is placed on
    a stage that does not read it, unlike MLC's floor(L/S) tags):

        {"pipeline_parallel_stages": S, "layer_partition": [0, ..., L],
         "param_stages": {name or index: [stages]}, "params": [{"index", "name", "stages"}]}

    param_names names packed_params field i at position i (MLC's named_parameters order);
    the same object as the "mlc" entry of `pipesplit opt --stage-report` (with --param-names).
    """
    import json  # pylint: disable=import-outside-toplevel

    return json.loads(_core.mlc_partition(module._handle, list(param_names or [])))
