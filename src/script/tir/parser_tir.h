// Lowering of a @T.prim_func definition (its parsed signature and body) to TIR IR.
//
// Names resolve through a stack of scopes (function, loop, block, let): symbolic vars
// (`n = T.int64()`), params, loop vars, block iter vars and buffers. Integer literals are
// int32 and float literals float32 unless the other operand of a binary operator gives them
// a dtype, as in TVM. Malformed TIR throws a located diagnostic.
#ifndef PIPESPLIT_SRC_SCRIPT_TIR_PARSER_TIR_H_
#define PIPESPLIT_SRC_SCRIPT_TIR_PARSER_TIR_H_

#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/support/source.h"
#include "src/script/syntax/parser_ast.h"

namespace pipesplit::script {

struct TirLowerOptions {
  bool is_private = false;
  // The decorator's s_tir=True (TVM since 2026): `T.alloc_buffer` in the body is then an
  // allocation statement, not an allocation of the enclosing block.
  bool s_tir = false;
  // The names of the module-level `n = TypeVar("n")` declarations: in the signature, a name
  // that is neither a parameter nor declared at the start of the body is the function's own
  // int64 var for that TypeVar (one per function, as TVM's parser makes them).
  const std::unordered_set<std::string>* type_vars = nullptr;
  int max_depth = 200;  // for the expressions of quoted signature dims
  // The module is in TVM's current syntax (since its 2026 Type change), whose block axes
  // `T.axis.spatial(n, i)` start at an int32 0 whatever n's dtype (before: at a 0 of n's).
  bool current_syntax = false;
};

// Builds the PrimFunc of `def` (a kOpaqueDef parsed as TIR). Sets *uses_sblock when the body
// spells blocks the 2026 way (T.sblock, ...).
ir::PrimFunc LowerTirFunction(const SourceFile& file, const PyStmt* def,
                              const TirLowerOptions& options, bool* uses_sblock = nullptr);

class TirLowerer;

// Structural equality of two parsed expressions (vars and buffers by identity).
bool SameExpr(const ir::PrimExpr& a, const ir::PrimExpr& b);
// The dotted callee of a call (`T.block`), or "" for anything else.
std::string TirCallee(const PyExpr* e);
// The names a `for` / assignment target binds: a name or a tuple of names.
std::vector<const PyExpr*> TirTargetNames(const TirLowerer& lowerer, const PyExpr* target);

class TirLowerer {
 public:
  explicit TirLowerer(const SourceFile& file, const TirLowerOptions& options = {})
      : file_(file), options_(options) {}
  ir::PrimFunc Function(const PyStmt* def);
  // Whether a T.sblock, T.sblock_alloc_buffer or T.sblock_attr was read.
  bool uses_sblock() const { return uses_sblock_; }

  // ---- Expressions (parser_tir_expr.cc) ----
  // `hint`: the dtype a bare literal takes (the other operand's dtype).
  ir::PrimExpr Expr(const PyExpr* e, std::optional<DataType> hint = std::nullopt);
  // A tuple/list (`*A.shape` items unpacked), a sequence (see Sequence), or one expression.
  std::vector<ir::PrimExpr> Exprs(const PyExpr* e);
  // The values of `A.shape` (a buffer's shape) or of the name of a multi-variable loop; null for
  // anything else.
  const std::vector<ir::PrimExpr>* Sequence(const PyExpr* e);
  ir::Buffer LookupBuffer(const PyExpr* name_expr, const char* what);
  ir::BufferRegion Region(const PyExpr* e);
  // A buffer declaration call: T.Buffer / T.match_buffer / T.alloc_buffer / T.decl_buffer /
  // T.alloc_shared / T.alloc_local. `first_arg`: index of the shape argument. A buffer of the
  // same name declared ahead with `name = T.Buffer(...)` (TVM prints one where a buffer is used
  // before its definition) is that buffer when the declarations agree.
  ir::Buffer BufferDecl(const PyExpr* call, size_t first_arg, std::string name);
  // A shape dim: an expression, or (in a signature) a quoted expression.
  ir::PrimExpr ShapeDim(const PyExpr* e);
  ir::AttrMap AttrDict(const PyExpr* e);
  DataType DTypeArg(const PyExpr* e);
  // extent of [begin, end): `end - begin`, or the c of `end == begin + c`.
  static ir::PrimExpr ExtentOf(const ir::PrimExpr& begin, const ir::PrimExpr& end);

  [[noreturn]] void Error(const PyExpr* e, std::string message) const;
  [[noreturn]] void Error(uint32_t begin, uint32_t end, std::string message) const;

 private:
  struct Symbol {
    ir::TirVar var;
    ir::Buffer buffer;
    std::vector<ir::PrimExpr> vars = {};  // `iters` of `for iters in T.grid(m, n)`
  };
  struct BlockParts;

  // ---- Statements (parser_tir.cc; blocks in parser_tir_block.cc) ----
  ir::Stmt Body(const std::vector<PyStmt*>& body, size_t from);
  // Lowers body[i]; statements that scope over the rest (lets, allocations) consume it.
  ir::Stmt Stmt(const std::vector<PyStmt*>& body, size_t* i);
  ir::Stmt For(const PyStmt* s);
  ir::Stmt With(const PyStmt* s);
  ir::Stmt While(const PyStmt* s);
  ir::Stmt Assert(const PyStmt* s);
  // T.launch_thread / T.attr as `with ... [as x]:` (body: the with body) or as a statement
  // scoping over the rest of the sequence (`x = T.launch_thread(...)`, `T.attr(...)`).
  ir::Stmt AttrStmt(const PyStmt* s, const PyExpr* call, const PyExpr* target,
                    const std::function<ir::Stmt()>& body);
  ir::AttrTarget AttrTargetOf(const PyExpr* e);
  ir::PrimExpr LetExpr(const PyExpr* call);
  // T.<intrinsic>(...) of the TIR builtins TVM's schedules emit (tvm_storage_sync, ...); null
  // when `name` is none of them.
  ir::PrimExpr Builtin(const PyExpr* call, const std::string& name);
  ir::Stmt BlockStmt(const PyStmt* s);
  bool BlockPart(const PyStmt* s, BlockParts* parts);
  bool BlockAxis(const PyStmt* s, const std::string& callee, BlockParts* parts);
  // Fills the regions a block was written without, as TVM's parser infers them.
  void InferRegions(const PyStmt* s, bool reads, bool writes, ir::BlockNode::Fields* fields);
  ir::Stmt Assign(const std::vector<PyStmt*>& body, size_t* i);
  ir::Stmt ScalarAlloc(const std::vector<PyStmt*>& body, size_t* i);
  ir::Stmt AugAssign(const PyStmt* s);
  bool DeclareVars(const PyStmt* s);  // `n = T.int64()` declarations; false for others
  // `x = T.Buffer(...)` in a body: a buffer used ahead of its definition; false for others.
  bool DeclareBuffer(const PyStmt* s);
  void Signature(const PyStmt* def, ir::PrimFuncNode::Fields* fields);
  void Preamble(const PyStmt* def, ir::PrimFuncNode::Fields* fields, size_t* first_body_stmt);
  ir::TirVar NewVar(const PyExpr* name_expr, DataType dtype);
  ir::TirVar NewVar(std::string_view name, DataType dtype, uint32_t begin, uint32_t end);

  void Push() { scopes_.emplace_back(); }
  void Pop() { scopes_.pop_back(); }
  void Define(std::string_view name, Symbol symbol) {
    scopes_.back()[std::string(name)] = std::move(symbol);
  }
  const Symbol* Find(std::string_view name) const;
  Span SpanOf(uint32_t begin, uint32_t end) const { return Span{file_.id(), begin, end}; }
  Span SpanOf(const PyExpr* e) const { return SpanOf(e->begin, e->end); }

  const SourceFile& file_;
  TirLowerOptions options_;
  std::vector<std::unordered_map<std::string, Symbol>> scopes_;
  bool in_signature_ = false;
  // Buffers declared ahead with `x = T.Buffer(...)` and not defined yet, by name.
  std::unordered_map<std::string, ir::Buffer> pending_buffers_;
  // The vars of `x = T.env_thread("threadIdx.x")`, with their tags.
  std::unordered_map<const ir::TirVarNode*, std::string> env_threads_;
  // The preamble statements `n = T.int32()` already lowered with the signature.
  std::unordered_set<const PyStmt*> predeclared_;
  std::unordered_map<const ir::TirVarNode*, ir::Range> loop_ranges_;
  std::vector<ir::Buffer> root_allocs_;
  std::vector<ir::Buffer>* allocs_ = nullptr;  // where T.alloc_buffer puts its buffer
  bool has_block_ = false;
  bool uses_sblock_ = false;
  const PyStmt* root_candidate_ = nullptr;  // the only statement of the function body
};

}  // namespace pipesplit::script

#endif  // PIPESPLIT_SRC_SCRIPT_TIR_PARSER_TIR_H_
