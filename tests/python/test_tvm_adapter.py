"""The TVM adapter (pipesplit.tvm): its text options and attribute handling without TVM
(pipesplit._tvm_text), and the adapter itself where TVM is importable (skipped elsewhere)."""

import importlib.util
import os

import pytest

from pipesplit._tvm_text import (
    SCRIPT_OPTIONS,
    AdapterError,
    check_text,
    is_text_attr,
    run_through_text,
    split_module_attrs,
)


def test_script_options_fix_every_option_that_changes_the_text():
    assert SCRIPT_OPTIONS["show_meta"] is True
    assert SCRIPT_OPTIONS["show_all_struct_info"] is True
    assert SCRIPT_OPTIONS["show_object_address"] is False
    assert SCRIPT_OPTIONS["syntax_sugar"] is True
    assert SCRIPT_OPTIONS["indent_spaces"] == 4
    assert SCRIPT_OPTIONS["print_line_numbers"] is False
    assert SCRIPT_OPTIONS["module_alias"] == "cls"


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

    def script(self, **options):
        self.options = options
        return self.text

    def with_attr(self, key, value):
        return FakeModule(self.text, {**self.attrs, key: value})


def test_run_through_text_prints_with_the_options_and_reapplies_carried_attributes():
    ext = Opaque()
    mod = FakeModule("IN", {"name": "m", "external_mods": [ext]})
    stripped = []

    def with_attrs_only(m, attrs):
        stripped.append(attrs)
        return FakeModule(m.text, attrs)

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
