"""pipesplit.run and verify_split: bit-identical to the CLI's `run` on 2 thread groups, and no
copies of C-contiguous arrays on the way in or out (checked by address)."""

import gc

import numpy as np
import pytest

import pipesplit
from pipesplit import transform

IDENTITY = '''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((2, 3), dtype="float32"):
        return x
'''

T23 = 'R.Tensor((2, 3), dtype="float32")'
ADD_WEIGHT = f'''# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: {T23}, packed_params: R.Tuple({T23})) -> {T23}:
        w: {T23} = packed_params[0]
        y: {T23} = R.add(x, w)
        return y
'''


def _address(array):
    return array.__array_interface__["data"][0]


def _assert_bit_identical(actual, expected):
    assert len(actual) == len(expected)
    for a, b in zip(actual, expected):
        assert a.dtype == b.dtype and a.shape == b.shape
        assert a.tobytes() == b.tobytes()


def test_run_on_two_groups_matches_cli(llama):
    split = pipesplit.parse((llama / "model.split.py").read_text())
    cli_out = pipesplit.read_safetensors(llama / "out.safetensors")
    expected = [cli_out[f"output_{i}"] for i in range(len(cli_out))]
    # Inputs from the file, and as NumPy arrays of our own.
    from_file = pipesplit.run(split, llama / "params.safetensors",
                              llama / "inputs.safetensors", groups=2)
    _assert_bit_identical(from_file, expected)
    arrays = {k: np.array(v) for k, v in
              pipesplit.read_safetensors(llama / "inputs.safetensors").items()}
    _assert_bit_identical(pipesplit.run(split, str(llama / "params.safetensors"), arrays,
                                        groups=2), expected)


def test_microbatches_match_the_unsplit_runs(llama):
    mod = pipesplit.parse((llama / "model.py").read_text())
    split = transform.PipelineParallelRewrite()(mod)
    params = llama / "params.safetensors"
    inputs = pipesplit.read_safetensors(llama / "microbatches.safetensors")
    staged = pipesplit.run(split, params, inputs, groups=2, microbatches=2)
    assert len(staged) == 2
    for k in range(2):
        alone = {n[:-2]: v for n, v in inputs.items() if n.endswith(f".{k}")}
        _assert_bit_identical(staged[k], pipesplit.run(mod, params, alone, groups=1))


def test_verify_split(llama):
    mod = pipesplit.parse((llama / "model.py").read_text())
    result = pipesplit.verify_split(mod, llama / "params.safetensors",
                                    llama / "inputs.safetensors", groups=2)
    assert result.identical and result.max_abs_diff == 0.0 and result.num_stages == 2


def test_input_and_output_are_not_copied():
    mod = pipesplit.parse(IDENTITY)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = pipesplit.run(mod, [], {"x": x})
    # The entry returns its parameter: the output views the very buffer passed in.
    assert _address(out) == _address(x)
    assert not out.flags.writeable and not out.flags.owndata
    address = _address(x)
    del x
    gc.collect()
    assert _address(out) == address  # the output keeps the input alive
    np.testing.assert_array_equal(out, np.arange(6, dtype=np.float32).reshape(2, 3))


def test_computed_output_views_runtime_storage():
    mod = pipesplit.parse(ADD_WEIGHT)
    x = np.ones((2, 3), dtype=np.float32)
    w = np.full((2, 3), 2.0, dtype=np.float32)
    (y,) = pipesplit.run(mod, [w], {"x": x})
    np.testing.assert_array_equal(y, np.full((2, 3), 3.0, dtype=np.float32))
    assert not y.flags.owndata and type(y.base).__name__ == "PyCapsule"
    assert _address(y) % 64 == 0  # a TensorBuilder's 64-byte aligned buffer, not a copy
    assert {_address(y)} & {_address(x), _address(w)} == set()
    # Weights as a dict of packed_params fields, inputs not contiguous (copied once).
    wide = np.ones((2, 6), dtype=np.float32)
    (z,) = pipesplit.run(mod, {"param_0": w}, {"x": wide[:, ::2]})
    np.testing.assert_array_equal(z, y)


def test_shape_and_dtype_errors():
    mod = pipesplit.parse(ADD_WEIGHT)
    w = np.zeros((2, 3), dtype=np.float32)
    with pytest.raises(pipesplit.RuntimeError):
        pipesplit.run(mod, [w], {"x": np.zeros((3, 3), dtype=np.float32)})
    with pytest.raises(pipesplit.RuntimeError, match="not a parameter"):
        pipesplit.run(mod, [w], {"x": np.zeros((2, 3), np.float32), "extra": w})
    with pytest.raises(TypeError):
        pipesplit.run(mod, [w], {"x": np.zeros((2, 3), dtype=np.complex64)})


def test_build_and_run_tir_kernels(cli, tmp_path):
    """pipesplit.build gives the library the CLI's `build` writes (same cache); a run of the
    split module builds and loads it, float16 arrays in and out."""
    from conftest import SOURCE_DIR  # pylint: disable=import-outside-toplevel
    path = SOURCE_DIR / "tests" / "transform" / "golden" / "call_tir_tir_vars.input.py"
    mod = pipesplit.parse(path.read_text(), path=str(path))
    cache = tmp_path / "cache"
    library = pipesplit.build(mod, cache_dir=cache)
    assert library.endswith(".so") and pipesplit.build(mod, cache_dir=cache) == library
    cli("build", path, "-o", tmp_path / "M.so", "--kernel-cache", cache, "--quiet")
    assert (tmp_path / "M.so").read_bytes() == open(library, "rb").read()
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (1, 5, 8)).astype(np.float16)
    w0, w1 = (rng.uniform(-1, 1, 8).astype(np.float16) for _ in range(2))
    result = pipesplit.verify_split(mod, [w0, w1], {"x": x}, groups=2, cache_dir=cache)
    assert result.identical and result.num_stages == 2
    (y,) = result.split
    assert y.dtype == np.float16 and y.shape == (1, 5, 8)
    np.testing.assert_array_equal(y, (x * w0) * w1)
