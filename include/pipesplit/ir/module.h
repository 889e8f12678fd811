// IRModule: an ordered collection of Relax functions, opaque TIR prim functions and
// module-level extern functions, plus module attributes and global infos.
#ifndef PIPESPLIT_IR_MODULE_H_
#define PIPESPLIT_IR_MODULE_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "pipesplit/ir/attrs.h"
#include "pipesplit/ir/expr.h"

namespace pipesplit::ir {

// Which TVMScript dialect a module was read from (the printer writes the same unless asked).
enum class Syntax : uint8_t { kClassic, kCurrent };

// How TIR blocks are spelled: `with T.block(...)` / `T.alloc_buffer` / `T.block_attr` (TVM
// before 2026), or `with T.sblock(...)` / `T.sblock_alloc_buffer` / `T.sblock_attr` with
// `@T.prim_func(s_tir=True)` (TVM since 2026). Independent of the Relax syntax.
enum class TirSyntax : uint8_t { kBlock, kSBlock };

// Spellings of the text a module was read from that the IR does not otherwise record, so that
// printing reproduces them (the parser sets them; passes leave them alone).
struct ScriptStyle {
  // The header names the TIR dialect `tir as T` (TVM before 2026) instead of `tirx as T`
  // followed by `# from tvm.tirx.layout import Axis`.
  bool legacy_tir_header = false;
  // Current syntax only: signature symbolic vars as PEP 695 type parameters (`def f[n](...)`
  // after `from __future__ import annotations`) instead of module-level `n = TypeVar("n")`.
  bool pep695 = true;
  // The spelling of TIR blocks.
  TirSyntax tir_syntax = TirSyntax::kBlock;
};

class IRModule {
 public:
  struct Member {
    GlobalVar gvar;
    Expr func;  // FunctionNode, PrimFuncNode or ExternFuncNode
  };

  IRModule() = default;

  // Members in insertion order (the printer sorts them as TVM does).
  const std::vector<Member>& members() const { return members_; }
  // Lookups by name; nullptr when absent.
  const Member* Find(std::string_view name) const;
  GlobalVar GetGlobalVar(std::string_view name) const;
  Expr Lookup(std::string_view name) const;
  Function LookupFunction(std::string_view name) const;  // nullptr if absent or not Relax

  // Adds a member under `gvar`; its name must be new (checked).
  void Add(GlobalVar gvar, Expr func);
  // Replaces the function of an existing member, keeping its position and GlobalVar.
  void Update(const GlobalVar& gvar, Expr func);
  // Removes a member if present.
  void Remove(std::string_view name);

  const AttrMap& attrs() const { return attrs_; }
  void set_attrs(AttrMap attrs) { attrs_ = std::move(attrs); }
  const AttrMap& global_infos() const { return global_infos_; }
  void set_global_infos(AttrMap infos) { global_infos_ = std::move(infos); }

  // True when the module references constants whose data is not shown (the printer then ends
  // the file with TVM's "# Metadata omitted" line).
  bool has_omitted_metadata() const { return has_omitted_metadata_; }
  void set_has_omitted_metadata(bool v) { has_omitted_metadata_ = v; }

  Syntax syntax() const { return syntax_; }
  void set_syntax(Syntax s) { syntax_ = s; }

  const ScriptStyle& script_style() const { return script_style_; }
  void set_script_style(ScriptStyle style) { script_style_ = style; }

 private:
  std::vector<Member> members_;
  std::unordered_map<std::string, size_t> index_;
  AttrMap attrs_;
  AttrMap global_infos_;
  bool has_omitted_metadata_ = false;
  Syntax syntax_ = Syntax::kClassic;
  ScriptStyle script_style_;
};

using IRModulePtr = std::shared_ptr<const IRModule>;

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_MODULE_H_
