// TVMScript (Relax) parser.
//
// Reads one `@I.ir_module` class in either syntax in the wild (classic: TVM v0.16..v0.23,
// 2023..mid-2026; current: TVM after its June 2026 "StructInfo -> Type" refactor, which spells
// sinfo_args/out_sinfo as ty_args/out_ty and R.Object as R.Any) into an IRModule. `@T.prim_func`
// members are kept as opaque text. Bindings are normalized through a BlockBuilder, so every
// expression gets its struct info.
//
// The IR it builds is the one TVM's parser builds:
// - A binding annotation on a call is the call's struct info (TVM does not infer annotated
//   calls); any other value keeps its inferred struct info and the annotation is only checked.
//   A function's return struct info is its body's when that refines (or replaces a missing)
//   annotation.
// - Nested non-leaf arguments are bound to fresh vars named as TVM's BlockBuilder names them
//   ("gv"/"lv" plus a counter that every emitted binding advances), and a return value that is
//   not a leaf or a tuple is bound the same way.
// - Call attributes are those written, in the op's declaration order (OpInfo); optional Relax
//   arguments with an expression default are materialized, as TVM's op constructors do.
// - Spellings without a direct IR counterpart: `T.index_map(lambda i, j: (j, i))` is the
//   attribute value AttrCall{"T.index_map", [AttrCall{"lambda", [params, results]}]} whose
//   params are fresh symbolic vars of the index dtype and whose results use them (a bare
//   `lambda` attribute is the inner AttrCall alone); `I.vdevice(...)` and other `I.*` calls are
//   AttrCalls as written; a current-syntax call_tir's trailing symbolic arguments are its
//   tir_vars (a ShapeExpr third argument, as in the classic IR); a current-syntax parameter
//   `n: T.int64` that the function uses as a symbolic value is R.Prim(value=n) with a var named
//   like the parameter; an expression statement binds its (void) value to a var named "_".
// - IRModule::syntax() records which syntax was read; script_style() the header and TypeVar
//   spellings needed to print it back the same way.
//
// Errors are DiagnosticErrors at the offending text ("file:line:col: error: ..."); no input
// makes the parser crash, recurse without bound or run out of memory (nesting deeper than
// ParseOptions::max_depth is reported as an error).
#ifndef PIPESPLIT_SCRIPT_PARSER_H_
#define PIPESPLIT_SCRIPT_PARSER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "pipesplit/ir/module.h"
#include "pipesplit/support/source.h"

namespace pipesplit::script {

struct ParseOptions {
  int max_depth = 200;  // brackets / expression nesting / indentation levels
  // Files at least this large are lexed and syntax-parsed in two pieces on two threads (the
  // result and diagnostics are the serial ones); negative: never. It pays when a second core
  // is free, and costs a little when none is (bench/parse_split_bench.cc).
  int64_t split_parse_min_bytes = int64_t{256} << 10;
  // R.call_tir(cls.f, (x, ...), out_sinfo=...) with names as arguments is lowered directly,
  // without the general op-call machinery (the same IR; off only to compare the two paths).
  bool direct_call_tir = true;
  // Every R.Tensor((16, 64), dtype="float32") with the same text (literal dims, literal dtype)
  // is one struct info node (the same IR, less memory; off only to compare).
  bool share_static_tensor_types = true;
};

// Parses a file already registered in the SourceManager.
ir::IRModule ParseModule(const SourceFile& file, const ParseOptions& options = {});

// Registers `text` under `file_name` and parses it.
ir::IRModule ParseModule(std::string_view text, std::string file_name = "<input>",
                         const ParseOptions& options = {});

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SCRIPT_PARSER_H_
