"""How pipesplit's TVM adapter (pipesplit.tvm) moves a tvm.IRModule through TVMScript.

This part needs no TVM, so it is tested where TVM is absent. A module goes out as the text
``mod.script(**SCRIPT_OPTIONS)`` prints, through a pipesplit pass, and back through TVM's
parser; what the text cannot carry is kept aside and put back:

* ``SCRIPT_OPTIONS`` fixes every printer option that changes the text, so the text is the one
  form pipesplit reads byte for byte (types on every binding, sugar on, no object addresses,
  constants shown); ``script_options`` adds the types option under the name the installed TVM
  gives it (``show_all_ty`` since TVM's 2026 StructInfo-to-Type change, ``show_all_struct_info``
  before);
* the text goes back through pipesplit's printer with ``for_tvm_parser`` (kernel vars renamed
  away from module-level TypeVars, which TVM's parser refuses to see redeclared) and through
  TVM's parser with the arguments ``parse_kwargs`` picks for the installed TVM (``s_tir=True``
  for kernels in TVM's schedulable form, whose well-formedness rules differ);
* module attributes that ``I.module_attrs`` prints (strings, numbers, booleans and lists or
  dicts of them) travel in the text; any other (``external_mods``, ``const_name_to_constant``,
  runtime objects) is carried around the pass and reapplied to its result;
* a module whose constants the printer cannot show (``metadata[...]`` references, or the
  "Metadata omitted" line) is refused with a message saying what to do, rather than losing them.
"""

import inspect
from typing import Any, Callable, Dict, Mapping, Tuple

# Every option of tvm.runtime.script_printer.Scriptable.script that changes the text, but the
# one whose name depends on TVM's version (script_options adds it).
SCRIPT_OPTIONS: Dict[str, Any] = {
    "show_meta": True,
    "ir_prefix": "I",
    "module_alias": "cls",
    "int_dtype": "int32",
    "float_dtype": "void",
    "verbose_expr": False,
    "indent_spaces": 4,
    "print_line_numbers": False,
    "syntax_sugar": True,
    "show_object_address": False,
}

# The option that prints a type on every binding: its name since TVM's 2026 Type change, before.
_TYPE_OPTIONS = ("show_all_ty", "show_all_struct_info")


def _parameters(function: Callable[..., Any]) -> Dict[str, Any]:
    try:
        return dict(inspect.signature(function).parameters)
    except (TypeError, ValueError):  # a builtin without a signature
        return {}


def script_options(script: Callable[..., str]) -> Dict[str, Any]:
    """SCRIPT_OPTIONS with the types option named as `script` (a module's bound script method)
    names it; AdapterError when it knows neither name."""
    parameters = _parameters(script)
    for name in _TYPE_OPTIONS:
        if name in parameters:
            return {**SCRIPT_OPTIONS, name: True}
    raise AdapterError(
        "this TVM's Scriptable.script() takes neither show_all_ty nor show_all_struct_info; "
        "pipesplit.tvm knows TVM 0.13 to 5d4dc87 (2026)"
    )


def parse_kwargs(from_source: Callable[..., Any], text: str) -> Dict[str, Any]:
    """The keyword arguments for TVM's parser (tvm.script.from_source) of `text`: s_tir=True
    where the parser takes it and the text has schedulable kernels (TVM checks those by the
    s_tir rules; its default, the tirx rules, refuse their blocks)."""
    if "s_tir" in _parameters(from_source) and "s_tir=True" in text:
        return {"s_tir": True}
    return {}

_METADATA_OMITTED = "# Metadata omitted."


class AdapterError(Exception):
    """A module the TVM adapter refuses, with the reason and what to do."""


def is_text_attr(value: Any) -> bool:
    """Whether I.module_attrs can print `value` (and so TVMScript carries it)."""
    if isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (list, tuple)):
        return all(is_text_attr(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and is_text_attr(v) for k, v in value.items())
    return False


def split_module_attrs(attrs: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(attributes the text carries, attributes carried around the pass), by name."""
    in_text: Dict[str, Any] = {}
    carried: Dict[str, Any] = {}
    for key in sorted(attrs):
        (in_text if is_text_attr(attrs[key]) else carried)[key] = attrs[key]
    return in_text, carried


def check_text(text: str) -> None:
    """Raises AdapterError when the printed module lost or hides constants."""
    if _METADATA_OMITTED in text:
        raise AdapterError(
            "the module holds constants the TVMScript printer did not show; pipesplit.tvm "
            "prints with show_meta=True, so this module's printer dropped them"
        )
    if 'metadata["' in text:
        count = text.count('metadata["')
        raise AdapterError(
            f"the module refers to {count} constant(s) as metadata[...], which TVMScript "
            "cannot carry back; bind them as parameters first (for example "
            "relax.transform.LiftTransformParams) or run the pass on the text with "
            "`pipesplit opt --metadata`"
        )


def run_through_text(
    mod: Any,
    attrs: Mapping[str, Any],
    transform: Callable[[str], str],
    from_source: Callable[[str], Any],
    with_attrs_only: Callable[[Any, Dict[str, Any]], Any],
) -> Any:
    """The module `transform` makes of `mod`'s text, parsed back by `from_source`.

    `attrs` are the module's attributes as Python values (a value TVMScript cannot print stays
    an object); `with_attrs_only(mod, attrs)` is `mod` with only those attributes. The
    attributes the text cannot carry are taken off before printing and put back on the result
    (``with_attr`` for each)."""
    in_text, carried = split_module_attrs(attrs)
    printable = with_attrs_only(mod, in_text) if carried else mod
    text = printable.script(**script_options(printable.script))
    check_text(text)
    back = transform(text)
    result = from_source(back, **parse_kwargs(from_source, back))
    for key, value in carried.items():
        result = result.with_attr(key, value)
    return result
