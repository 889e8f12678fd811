// BlockBuilder: builds normalized Relax code binding by binding.
//
// - Normalize(expr) gives every node its struct info (inferring calls through the op table,
//   calls of GlobalVars through their callee's signature), and, while a block is open, turns
//   nested non-leaf arguments into bindings of their own (A-normal form), as TVM's does.
// - Emit* append bindings to the open block, naming fresh vars uniquely ("lv", "lv1", ...).
// - Scopes: BeginScope(params) opens a function scope whose symbolic vars are those the params
//   define; EmitMatchCast defines more. IsDefined answers whether a symbolic var is in scope.
//
// Errors in user input (an op applied to the wrong kinds of values, an unknown op with no
// annotation) are thrown as DiagnosticError at the offending node's span.
#ifndef PIPESPLIT_IR_BLOCK_BUILDER_H_
#define PIPESPLIT_IR_BLOCK_BUILDER_H_

#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/module.h"
#include "pipesplit/ir/name_supply.h"

namespace pipesplit::ir {

class BlockBuilder {
 public:
  BlockBuilder() = default;

  // ---- Scopes ----
  // Opens a function scope; the symbolic vars appearing in the params' struct info become
  // defined. Scopes nest (for nested functions and if-branches).
  void BeginScope(const std::vector<Var>& params = {});
  void EndScope();
  // Defines a symbolic var in the innermost scope (e.g. `n = T.int64()` in the parser).
  void DefineTirVar(const TirVar& var);
  bool IsDefined(const TirVarNode& var) const;

  // ---- Blocks ----
  void BeginDataflowBlock(Span span = {});
  void BeginBindingBlock(Span span = {});
  bool in_block() const { return !blocks_.empty(); }
  bool in_dataflow_block() const { return !blocks_.empty() && blocks_.back().is_dataflow; }
  // Closes the innermost block and returns it. A block begun without a span spans its bindings.
  BindingBlock EndBlock();

  // ---- Emission ----
  // Normalizes `value` and binds it to a fresh var (a DataflowVar inside a dataflow block).
  Var Emit(const Expr& value, std::string name_hint = "", Span span = {});
  // Inside a dataflow block, binds to a non-dataflow var (visible after the block).
  Var EmitOutput(const Expr& value, std::string name_hint = "", Span span = {});
  // var = R.match_cast(value, sinfo); defines the symbolic vars new to this scope.
  Var EmitMatchCast(const Expr& value, const StructInfo& sinfo, std::string name_hint = "",
                    Span span = {});
  // Appends a binding whose var and value are already normalized (the parser's path, where
  // the var and its annotation come from the text).
  void EmitNormalized(const Binding& binding);

  // ---- Normalization ----
  // Returns `expr` with struct info on every node (the same node when it already has it).
  Expr Normalize(const Expr& expr);
  // Infers the struct info of a call whose args are normalized. Throws DiagnosticError on
  // ill-typed calls and on opaque calls (unknown ops), which need an annotation.
  StructInfo InferCallStructInfo(const CallNode& call);

  // The names in use so far (the vars of EmitNormalized are recorded lazily, on first need).
  NameSupply& names();

 private:
  struct BlockFrame {
    std::vector<Binding> bindings;
    bool is_dataflow;
    Span span;
  };
  struct ScopeFrame {
    std::vector<const TirVarNode*> defined;  // undone at EndScope
  };

  Expr NormalizeArgument(const Expr& arg);
  void DefineTirVarsOf(const StructInfo& sinfo);

  std::vector<BlockFrame> blocks_;
  std::vector<ScopeFrame> scopes_;
  std::unordered_set<const TirVarNode*> defined_tir_vars_;
  NameSupply names_;
  // Vars of EmitNormalized not yet reserved in names_: the parser emits every binding that
  // way and never asks for a fresh name, so it never pays for the name table.
  std::vector<Var> unreserved_;
};

}  // namespace pipesplit::ir

#endif  // PIPESPLIT_IR_BLOCK_BUILDER_H_
