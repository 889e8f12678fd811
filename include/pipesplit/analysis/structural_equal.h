// Structural equality and hashing modulo renaming (tvm.ir.assert_structural_equal).
//
// Two modules are equal when their members (matched by name) are equal. Within a function,
// Vars and symbolic TirVars are matched at their definition points (params, bindings,
// match_cast targets, first occurrence in a signature), never by name; GlobalVars compare by
// name. Struct info, attrs, sinfo_args and spans-free content all count; spans do not.
#ifndef PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_
#define PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_

#include <cstdint>
#include <string>

#include "pipesplit/ir/module.h"

namespace pipesplit::analysis {

// Where two structures first differ: a path such as
// "main.body.blocks[0].bindings[3].value.args[1].struct_info.shape[0]" and a short rendering
// of each side at that point.
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

// Hashes consistent with StructuralEqual (equal => same hash); linear time.
uint64_t StructuralHash(const ir::IRModule& mod);
uint64_t StructuralHash(const ir::Expr& expr);

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_ANALYSIS_STRUCTURAL_EQUAL_H_
