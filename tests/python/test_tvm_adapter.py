"""The TVM adapter (pipesplit.tvm): its text options and attribute handling without TVM
(pipesplit._tvm_text), and the adapter itself where TVM is importable (skipped elsewhere)."""

import importlib.util
import os

import pytest

import pipesplit
from pipesplit._tvm_text import (
    SCRIPT_OPTIONS,
    AdapterError,
    check_text,
    is_text_attr,
    parse_kwargs,
    run_through_text,
    script_options,
    split_module_attrs,
)


def test_script_options_fix_every_option_that_changes_the_text():
    assert SCRIPT_OPTIONS["show_meta"] is True
    assert SCRIPT_OPTIONS["show_object_address"] is False
    assert SCRIPT_OPTIONS["syntax_sugar"] is True
    assert SCRIPT_OPTIONS["indent_spaces"] == 4
    assert SCRIPT_OPTIONS["print_line_numbers"] is False
    assert SCRIPT_OPTIONS["module_alias"] == "cls"


def test_the_types_option_is_named_as_the_installed_tvm_names_it():
    # TVM 5d4dc87 (2026): Scriptable.script(*, ..., show_all_ty=True, ...).
    def script_2026(*, show_meta=False, show_all_ty=True, extra_config=None):
        return ""

    # TVM before its 2026 Type change.
    def script_2025(*, show_meta=False, show_all_struct_info=True):
        return ""

    def script_unknown(*, show_meta=False):
        return ""

    assert script_options(script_2026) == {**SCRIPT_OPTIONS, "show_all_ty": True}
    assert script_options(script_2025) == {**SCRIPT_OPTIONS, "show_all_struct_info": True}
    with pytest.raises(AdapterError, match="neither show_all_ty nor show_all_struct_info"):
        script_options(script_unknown)


def test_tvm_parses_schedulable_kernels_by_their_rules():
    # TVM 5d4dc87: parse(program, extra_vars=None, check_well_formed=True, s_tir=False, ...).
    def parse_2026(program, extra_vars=None, check_well_formed=True, s_tir=False):
        return program

    def parse_2025(program, extra_vars=None, check_well_formed=True):
        return program

    kernel = "    @T.prim_func(s_tir=True)\n    def k(): ...\n"
    assert parse_kwargs(parse_2026, kernel) == {"s_tir": True}
    assert parse_kwargs(parse_2026, "@R.function\ndef f(): ...\n") == {}
    assert parse_kwargs(parse_2025, kernel) == {}


# A module-level TypeVar n and a kernel that declares a var n of its own: TVM 5d4dc87 prints
# this and cannot read it back ("Variable n already defined in current scope").
SHADOWING = """# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

n = TypeVar("n")
@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def copy(A: T.Buffer(("n", 4), "float32"), B: T.Buffer((n, 4), "float32")):
        n = T.int32()
        for i, j in T.grid(n, 4):
            B[i, j] = A[i, j]

    @R.function
    def main(x: R.Tensor((n, 4), dtype="float32")) -> R.Tensor((n, 4), dtype="float32"):
        return x
"""


def test_text_for_tvms_parser_renames_kernel_vars_that_shadow_a_typevar():
    mod = pipesplit.parse(SHADOWING)
    assert mod.script() == SHADOWING
    text = mod.script(for_tvm_parser=True)
    assert 'def copy(A: T.Buffer(("n_1", 4), "float32"), B: T.Buffer((n_1, 4), "float32")):' in text
    assert "        n_1 = T.int32()\n" in text
    assert 'def main(x: R.Tensor((n, 4), dtype="float32"))' in text
    assert pipesplit.parse(text).script() == text


class Opaque:
    """Stands for a runtime object (an external module)."""


def test_attributes_split_into_text_and_carried():
    attrs = {
        "system_lib_prefix": "lib_",
        "stages": [0, 2, 4],
        "config": {"a": 1, "b": [True, 2.5]},
        "external_mods": [Opaque()],
        "const_name_to_constant": {"c": Opaque()},
    }
    in_text, carried = split_module_attrs(attrs)
    assert sorted(in_text) == ["config", "stages", "system_lib_prefix"]
    assert sorted(carried) == ["const_name_to_constant", "external_mods"]
    assert is_text_attr(("x", 1)) and not is_text_attr({1: "key not a string"})


def test_hidden_constants_are_refused_with_what_to_do():
    with pytest.raises(AdapterError, match="did not show"):
        check_text("...\n# Metadata omitted. Use show_meta=True in script() method to show it.\n")
    with pytest.raises(AdapterError, match=r"2 constant\(s\) as metadata\[\.\.\.\]"):
        check_text('x = metadata["relax.expr.Constant"][0]\ny = metadata["relax.expr.Constant"][1]')
    check_text("@I.ir_module\nclass Module:\n    pass\n")


class FakeModule:
    """A module with TVM's script / with_attr surface."""

    def __init__(self, text, attrs):
        self.text, self.attrs, self.options = text, dict(attrs), None

    def script(self, *, show_meta=False, show_all_ty=True, **options):
        self.options = dict(options, show_meta=show_meta, show_all_ty=show_all_ty)
        return self.text

    def with_attr(self, key, value):
        return FakeModule(self.text, {**self.attrs, key: value})


def test_run_through_text_prints_with_the_options_and_reapplies_carried_attributes():
    ext = Opaque()
    mod = FakeModule("IN", {"name": "m", "external_mods": [ext]})
    stripped, printed = [], []

    def with_attrs_only(m, attrs):
        stripped.append(attrs)
        printed.append(FakeModule(m.text, attrs))
        return printed[-1]

    out = run_through_text(
        mod,
        mod.attrs,
        transform=lambda text: text + " SPLIT",
        from_source=lambda text: FakeModule(text, {"name": "m"}),
        with_attrs_only=with_attrs_only,
    )
    assert out.text == "IN SPLIT"
    assert out.attrs == {"name": "m", "external_mods": [ext]}
    assert stripped == [{"name": "m"}]  # printed without the attribute text cannot carry
    assert mod.options is None and printed[0].options["show_all_ty"] is True


@pytest.mark.skipif(importlib.util.find_spec("tvm") is None, reason="tvm is not importable")
def test_tvm_adapter_splits_a_marked_module():  # pragma: no cover (needs TVM)
    import tvm  # noqa: F401
    from tvm.script import from_source

    from pipesplit.tvm import PipelineParallelRewrite

    golden = os.path.join(os.environ["PIPESPLIT_SOURCE_DIR"], "tests", "transform", "golden",
                          "shape_var_tensor_crosses_stage.input.py")
    text = open(golden, encoding="utf-8").read()
    mod = from_source(text)
    out = PipelineParallelRewrite()(mod)
    assert any("_stage1" in gv.name_hint for gv in out.get_global_vars())


@pytest.mark.skipif(importlib.util.find_spec("tvm") is not None, reason="tvm is importable")
def test_the_adapter_needs_tvm():
    with pytest.raises(ImportError):
        import pipesplit.tvm  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import
