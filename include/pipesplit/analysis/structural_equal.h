// Structural equality and hashing modulo renaming (tvm.ir.assert_structural_equal).
//
// Two modules are equal when their members (matched by name) are equal: Relax functions
// structurally, prim functions by their text, extern functions by symbol; module attrs and global
// infos count too. Within a function, Vars and symbolic TirVars are matched at their definition
// points (params, bindings, match_cast targets, first occurrence in a signature or a defining
// struct info), never by name, one-to-one in both directions; GlobalVars compare by name.
// DataflowVar vs Var, struct info (of definitions and of every expression), call attrs, sinfo_args,
// constants, purity and function attrs all count. Attribute dicts compare regardless of key order;
// a call of a registered op compares its attrs as TVM stores them (ir::CompleteAttrs: omitted
// attributes equal their declared defaults), with numbers compared by value (`0` equals `0.0`
// there, as in TVM's typed attribute fields). The params of a lambda attribute
// (T.index_map(lambda i, j: ...)) are bound by the lambda. Spans, the syntax a module was read in,
// its script style and its metadata-omitted flag do not count.
#ifndef PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_
#define PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_

#include <cstdint>
#include <string>

#include "pipesplit/ir/module.h"

namespace pipesplit::analysis {

// Where two structures first differ: a path such as
// "main.body.blocks[0].bindings[3].value.args[1].struct_info.shape[0]" (from the module member,
// or relative to the compared expression or struct info: empty when they differ at the top), and
// a short one-line rendering of each side at that point ("<missing>" for an element only one side
// has).
struct StructuralDifference {
  std::string path;
  std::string lhs;
  std::string rhs;
  std::string ToString() const;  // "path: lhs vs rhs"
};

bool StructuralEqual(const ir::IRModule& lhs, const ir::IRModule& rhs,
                     StructuralDifference* difference = nullptr);
// Expressions; free vars (not defined inside) are matched when map_free_vars, else by
// identity.
bool StructuralEqual(const ir::Expr& lhs, const ir::Expr& rhs, bool map_free_vars = false,
                     StructuralDifference* difference = nullptr);
bool StructuralEqual(const ir::StructInfo& lhs, const ir::StructInfo& rhs,
                     bool map_free_vars = false, StructuralDifference* difference = nullptr);

// Hashes consistent with StructuralEqual (equal => same hash; vars hash by the order in which
// they are first met, so renaming does not change the hash); linear time. The module hash does
// not depend on member order.
uint64_t StructuralHash(const ir::IRModule& mod);
uint64_t StructuralHash(const ir::Expr& expr);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_
