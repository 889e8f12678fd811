"""Shared fixtures of the Python package's tests: the CLI binary (PIPESPLIT_CLI), the corpus
(../shared/corpus from PIPESPLIT_SOURCE_DIR) and a tiny Llama split and run by the CLI."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(os.environ.get("PIPESPLIT_SOURCE_DIR",
                                         pathlib.Path(__file__).resolve().parents[2]))
CORPUS = SOURCE_DIR.parent / "shared" / "corpus"


@pytest.fixture(scope="session")
def cli():
    """A function running the CLI: cli("fmt", path) -> CompletedProcess (text)."""
    binary = os.environ.get("PIPESPLIT_CLI", str(SOURCE_DIR / "build" / "pipesplit"))
    if not os.access(binary, os.X_OK):
        pytest.skip(f"the CLI is not built: {binary}")

    def run(*args, check=True, env=None):
        return subprocess.run([binary, *map(str, args)], capture_output=True, text=True,
                              check=check, env=env)
    return run


@pytest.fixture(scope="session")
def corpus():
    """The shared corpus folder (skips when absent, as in a user's clone)."""
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not available: {CORPUS}")
    return CORPUS


@pytest.fixture(scope="session")
def llama(cli, tmp_path_factory):
    """A tiny Llama in 2 stages: model.py, model.split.py (the CLI's rewrite), params and
    inputs, and out.safetensors of the CLI's run of the split module on 2 groups."""
    d = tmp_path_factory.mktemp("llama")
    cli("example", "llama", "--layers", 2, "--hidden", 32, "--heads", 4, "--ffn", 64,
        "--vocab", 64, "--seq", 8, "--stages", 2, "--microbatches", 2, "-o", d)
    cli("opt", d / "model.py", "-p", "pipeline-parallel-rewrite,verify", "-o",
        d / "model.split.py")
    cli("run", d / "model.split.py", "--params", d / "params.safetensors", "--inputs",
        d / "inputs.safetensors", "--groups", 2, "-o", d / "out.safetensors")
    return d
