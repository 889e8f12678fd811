// The well-formedness checker's walk (see well_formed.cc for the invariants it enforces). One
// linear pass over the module: scopes are stacks of definitions undone at scope end, so each
// check costs O(1) per node besides the struct info it looks at.
#ifndef PIPESPLIT_SRC_ANALYSIS_WELL_FORMED_CHECKER_H_
#define PIPESPLIT_SRC_ANALYSIS_WELL_FORMED_CHECKER_H_

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/block_builder.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/support/diagnostic.h"

namespace pipesplit::analysis {

// A var's name in quotes for a message ('v' when it has none, as the printer names it).
inline std::string Quoted(const std::string& name) {
  return "'" + (name.empty() ? "v" : name) + "'";
}
// A TIR name in quotes.
inline std::string QuotedTirName(const std::string& name) { return "'" + name + "'"; }
// "1 buffer", "3 buffers".
inline std::string Plural(size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Relax nesting (functions, blocks, expressions) deeper than this is reported, not walked (the
// parser caps nesting at 200; see kMaxDepth in structural_comparer.h for the stack budget).
inline constexpr int kMaxCheckDepth = 512;

// "function 'f'", or "an anonymous function" for a function bound to no name.
std::string FunctionName(const std::string& name);

// "a call", "an if expression", ... for messages about where a node may not appear.
std::string KindPhrase(const ir::Expr& expr);

// True when no value described by `inferred` can be described by `annotated`: a provable
// contradiction (kinds, dtypes, ranks, constant dims), not a mere failure to prove (TVM's
// StructInfoBaseCheck reaching kFailL0).
bool ProvablyIncompatible(const ir::StructInfo& annotated, const ir::StructInfo& inferred,
                          int depth = 0);

// well_formed_tir.cc: invariants 10 to 16 on prim function `name` (its own scopes: TIR shares no
// definitions with Relax functions). Appends its violations to `out`.
void CheckPrimFunc(const ir::PrimFuncNode& func, const std::string& name,
                   std::vector<Diagnostic>* out);

// well_formed_call_tir.cc: invariant 17, `call` (a call_tir of any flavour) against the
// signature of `func`, the prim function member `name`; violations located at `span`.
// `static_dims`: also compare dims that are constants on both sides.
void CheckCallTirSignature(const ir::CallNode& call, const ir::PrimFuncNode& func,
                           const std::string& name, Span span, bool static_dims,
                           std::vector<Diagnostic>* out);

class WellFormedChecker {
 public:
  WellFormedChecker(const ir::IRModule& mod, const WellFormedOptions& options)
      : mod_(mod), options_(options) {}
  std::vector<Diagnostic> Run();

 private:
  // ---- Relax vars ----
  struct VarInfo {
    bool defined = false;   // a definition has been seen (anywhere)
    bool in_scope = false;  // visible at the current point of the walk
    Span def_span;
    uint64_t def_seq = 0;  // walk order of the definition
  };
  // A use that found no visible definition; its message is settled after the walk, when we know
  // whether a definition appears later or only in another scope.
  struct PendingUse {
    size_t diagnostic;
    const ir::VarNode* var;
    uint64_t use_seq;
  };

  // ---- Symbolic vars ----
  struct TirInfo {
    int frame = -1;                           // function frame where it is defined; -1: nowhere
    const ir::FunctionNode* owner = nullptr;  // top-level function it appeared in first
    std::string owner_name;
    Span first_span;
  };

  // ---- Functions being checked (innermost last) ----
  struct FunctionFrame {
    const ir::FunctionNode* func;
    std::string name;
    bool must_be_pure;
    int tir_frame;
  };

  // well_formed.cc: module, functions, bindings, scopes.
  void CheckFunction(const ir::FunctionNode& func, const std::string& name, Span context);
  void CheckSeqExpr(const ir::Expr& expr, const char* what, Span context);
  void CheckBlock(const ir::BindingBlock& block, Span context);
  void CheckBinding(const ir::Binding& binding, Span context);
  void DefineVar(const ir::Var& var, Span context);
  void UseVar(const ir::VarNode& var, Span context);
  size_t ScopeMark() const { return scope_vars_.size(); }
  void PopScope(size_t mark);
  void ResolvePendingUses();

  // well_formed_exprs.cc: expressions, symbolic vars, struct info, purity.
  void CheckExpr(const ir::Expr& expr, Span context);
  void CheckLeaf(const ir::Expr& expr, const char* place, Span context);
  void CheckCall(const ir::Expr& call, Span span);
  void CheckCallTir(const ir::CallNode& call, Span span);
  void CheckCallStructInfo(const ir::CallNode& call, Span span);
  void CheckPurity(const ir::CallNode& call, Span span);
  void CheckGlobalVar(const ir::GlobalVarNode& gvar, Span span);
  bool HasStructInfo(const ir::Expr& expr, Span span);
  // Defines the symbolic vars that appear bare in defining positions of `sinfo`.
  void DefineTirVars(const ir::StructInfo& sinfo, Span context, int depth = 0);
  // Checks every symbolic var in `sinfo` / `expr` is defined and owned by this function.
  void CheckTirVars(const ir::StructInfo& sinfo, Span context, int depth = 0);
  void CheckTirVars(const ir::PrimExpr& expr, Span context);
  void DefineTirVar(const ir::TirVarNode* var, Span context);
  void CheckOwner(const ir::TirVarNode* var, Span context);
  void UseTirVar(const ir::TirVarNode* var, Span context);
  size_t TirMark() const { return tir_scope_.size(); }
  void PopTirScope(size_t mark);

  Diagnostic& Error(Span span, std::string message);
  Span Pick(Span preferred, Span fallback) const {
    return preferred.valid() ? preferred : fallback;
  }
  const FunctionFrame& CurrentFunction() const { return functions_.back(); }

  const ir::IRModule& mod_;
  WellFormedOptions options_;
  std::vector<Diagnostic> diagnostics_;

  std::unordered_map<const ir::VarNode*, VarInfo> vars_;
  std::vector<const ir::VarNode*> scope_vars_;             // definitions of the open scopes
  std::vector<const ir::VarNode*> dataflow_vars_;          // dataflow definitions of the open block
  std::unordered_set<const ir::VarNode*> recursive_vars_;  // a binding's own var, in its function
  std::unordered_set<const ir::VarNode*> reported_vars_;   // one use error per var
  std::vector<PendingUse> pending_uses_;
  uint64_t seq_ = 0;

  std::unordered_map<const ir::TirVarNode*, TirInfo> tir_vars_;
  std::vector<std::pair<const ir::TirVarNode*, int>> tir_scope_;  // (var, frame before)
  std::unordered_set<const ir::TirVarNode*> reported_tir_vars_;   // per top-level function
  std::unordered_set<const ir::TirVarNode*> reported_shared_;     // shared across functions
  int next_tir_frame_ = 0;

  std::vector<FunctionFrame> functions_;
  const ir::FunctionNode* top_function_ = nullptr;
  std::string top_name_;
  bool in_dataflow_ = false;
  int depth_ = 0;
  int callable_depth_ = 0;  // > 0 while inside a callable struct info's signature
  bool reported_depth_ = false;

  ir::BlockBuilder builder_;  // re-infers call struct info (no scope open: every var defined)
};

}  // namespace pipesplit::analysis

#endif  // PIPESPLIT_SRC_ANALYSIS_WELL_FORMED_CHECKER_H_
