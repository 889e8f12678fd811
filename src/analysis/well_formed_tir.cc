// The well-formedness checker's walk over one prim function (invariants 10 to 16 of
// well_formed.cc): definitions of vars and buffers in scope, block iter vars, stores, loads, loop
// extents, T.init and predicates. Scopes are stacks of definitions undone at scope end.
#include <unordered_map>
#include <unordered_set>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/tir.h"
#include "pipesplit/ir/tir_functor.h"
#include "pipesplit/support/check.h"
#include "src/analysis/well_formed_checker.h"

namespace pipesplit::analysis {

using namespace ir;  // NOLINT: IR node names throughout

namespace {

// Each statement kind is checked by its own handler.
class TirChecker : private StmtFunctor<void(const StmtNode&, Span)> {
 public:
  TirChecker(const PrimFuncNode& func, const std::string& name, std::vector<Diagnostic>* out)
      : func_(func), where_(" in prim function " + QuotedTirName(name)), out_(out) {}

  void Run();

 private:
  struct VarState {
    int visible = 0;   // > 0 while a definition is in scope
    std::string what;  // "variable 'i'", "block iter variable 'vi' of block \"B\"", ...
  };
  struct BufferState {
    int visible = 0;
    bool defined = false;
  };

  void Stmt(const ir::Stmt& stmt, Span context);
  void VisitStmt_(const ForNode& loop, Span span) override { For(loop, span); }
  void VisitStmt_(const BlockRealizeNode& realize, Span span) override { Realize(realize, span); }
  // A Block outside a BlockRealize (hand-built IR).
  void VisitStmt_(const BlockNode& block, Span span) override { Block(block, span); }
  void VisitStmt_(const SeqStmtNode& seq, Span span) override {
    for (const ir::Stmt& s : seq.seq()) Stmt(s, span);
  }
  void VisitStmt_(const BufferStoreNode& store, Span span) override { Store(store, span); }
  void VisitStmt_(const LetStmtNode& let, Span span) override;
  void VisitStmt_(const IfThenElseNode& branch, Span span) override;
  void VisitStmt_(const EvaluateNode& evaluate, Span span) override {
    Expr(evaluate.value(), span);
  }
  void VisitStmt_(const AllocateNode& alloc, Span span) override;
  void VisitStmt_(const DeclBufferNode& decl, Span span) override;
  void VisitStmt_(const AllocBufferNode& alloc, Span span) override;
  void VisitStmt_(const AssertStmtNode& assert_stmt, Span span) override;
  void VisitStmt_(const WhileNode& loop, Span span) override;
  void VisitStmt_(const AttrStmtNode& attr, Span span) override;
  void Bool(const PrimExpr& e, const std::string& what, Span span);
  void For(const ForNode& loop, Span span);
  void Realize(const BlockRealizeNode& realize, Span span);
  void Block(const BlockNode& block, Span span);
  void Store(const BufferStoreNode& store, Span span);
  void Expr(const PrimExpr& expr, Span context);
  void Indices(const Buffer& buffer, const std::vector<PrimExpr>& indices, const char* access,
               Span span);
  void Region(const BufferRegion& region, const char* access, Span span);

  void DefineVar(const TirVarNode* var, std::string what);
  void UseVar(const TirVarNode& var, Span span);
  // Binds the bare vars of `buffer`'s shape not yet defined (the first occurrence binds).
  void BindShapeVars(const Buffer& buffer);
  void UseShape(const Buffer& buffer, Span context);
  void DefineBuffer(const Buffer& buffer);
  // False when `buffer` is not visible (reported once per buffer).
  bool UseBuffer(const Buffer& buffer, const char* access, Span span);
  void Integer(const PrimExpr& e, const std::string& what, Span span);

  size_t Mark() const { return scope_.size(); }
  void PopTo(size_t mark);
  void Error(Span span, std::string message) {
    out_->push_back({Severity::kError, span, std::move(message) + where_, {}});
  }
  static Span Pick(Span preferred, Span fallback) {
    return preferred.valid() ? preferred : fallback;
  }

  const PrimFuncNode& func_;
  std::string where_;
  std::vector<Diagnostic>* out_;
  std::unordered_map<const TirVarNode*, VarState> vars_;
  std::unordered_map<const BufferNode*, BufferState> buffers_;
  std::vector<const Node*> scope_;  // TirVarNode or BufferNode definitions of the open scopes
  std::unordered_set<const Node*> reported_;
};

void TirChecker::Run() {
  Span span = func_.span();
  for (const TirVar& param : func_.params()) {
    if (param) DefineVar(param.get(), "parameter " + QuotedTirName(param->name()));
  }
  for (const auto& [param, buffer] : func_.buffer_map()) {
    if (buffer) BindShapeVars(buffer);
  }
  for (const auto& [param, buffer] : func_.buffer_map()) {
    if (buffer == nullptr) continue;
    UseShape(buffer, Pick(buffer->span(), span));
    DefineBuffer(buffer);
  }
  if (func_.body() == nullptr) {
    Error(span, "the body is missing");
    return;
  }
  Stmt(func_.body(), span);
}

void TirChecker::PopTo(size_t mark) {
  while (scope_.size() > mark) {
    const Node* node = scope_.back();
    scope_.pop_back();
    if (node->kind() == NodeKind::kBuffer) {
      --buffers_[static_cast<const BufferNode*>(node)].visible;
    } else {
      --vars_[static_cast<const TirVarNode*>(node)].visible;
    }
  }
}

void TirChecker::DefineVar(const TirVarNode* var, std::string what) {
  VarState& state = vars_[var];
  ++state.visible;
  state.what = std::move(what);
  scope_.push_back(var);
}

void TirChecker::UseVar(const TirVarNode& var, Span span) {
  auto it = vars_.find(&var);
  if (it != vars_.end() && it->second.visible > 0) return;
  if (!reported_.insert(&var).second) return;
  if (it == vars_.end()) {
    Error(span, "variable " + QuotedTirName(var.name()) + " is not defined");
  } else {
    Error(span, it->second.what + " is used outside the scope that defines it");
  }
}

void TirChecker::BindShapeVars(const Buffer& buffer) {
  // The bare vars of the shape, strides and element offset (A.strides[0], A.elem_offset).
  std::vector<PrimExpr> fields = buffer->shape();
  fields.insert(fields.end(), buffer->strides().begin(), buffer->strides().end());
  fields.push_back(buffer->elem_offset());
  for (const PrimExpr& dim : fields) {
    const auto* var = As<TirVarNode>(dim);
    if (var == nullptr) continue;
    auto it = vars_.find(var);
    if (it == vars_.end() || it->second.visible == 0) {
      DefineVar(var, "shape variable " + QuotedTirName(var->name()) + " of buffer " +
                         QuotedTirName(buffer->name()));
    }
  }
}

void TirChecker::UseShape(const Buffer& buffer, Span context) {
  for (const PrimExpr& dim : buffer->shape()) {
    if (dim == nullptr) {
      Error(context, "buffer " + QuotedTirName(buffer->name()) + " has a missing dimension");
      continue;
    }
    Expr(dim, context);
    Integer(dim, "a dimension of buffer " + QuotedTirName(buffer->name()), context);
  }
  for (const PrimExpr& stride : buffer->strides()) {
    if (stride == nullptr) continue;
    Expr(stride, context);
    Integer(stride, "a stride of buffer " + QuotedTirName(buffer->name()), context);
  }
  if (const PrimExpr& offset = buffer->elem_offset()) {
    Expr(offset, context);
    Integer(offset, "the element offset of buffer " + QuotedTirName(buffer->name()), context);
  }
  if (buffer->layout().offset_factor < 1) {
    Error(context, "buffer " + QuotedTirName(buffer->name()) + " has offset factor " +
                       std::to_string(buffer->layout().offset_factor) + ", not a positive one");
  }
}

void TirChecker::Bool(const PrimExpr& e, const std::string& what, Span span) {
  if (e && !e->dtype().is_bool()) {
    Error(span, what + " is " + e->dtype().ToString() + ", not bool");
  }
}

void TirChecker::DefineBuffer(const Buffer& buffer) {
  BufferState& state = buffers_[buffer.get()];
  ++state.visible;
  state.defined = true;
  scope_.push_back(buffer.get());
  // Its data pointer (A.data) lives as long as it.
  if (buffer->data()) {
    DefineVar(buffer->data().get(), "data pointer of buffer " + QuotedTirName(buffer->name()));
  }
}

bool TirChecker::UseBuffer(const Buffer& buffer, const char* access, Span span) {
  auto it = buffers_.find(buffer.get());
  if (it != buffers_.end() && it->second.visible > 0) return true;
  if (!reported_.insert(buffer.get()).second) return false;
  std::string name = QuotedTirName(buffer->name());
  if (it == buffers_.end() || !it->second.defined) {
    Error(span, std::string(access) + " buffer " + name + ", which is not defined");
  } else {
    Error(span, std::string(access) + " buffer " + name + " outside the scope that defines it");
  }
  return false;
}

void TirChecker::Integer(const PrimExpr& e, const std::string& what, Span span) {
  if (e && !e->dtype().is_integer()) {
    Error(span, what + " is " + e->dtype().ToString() + ", not an integer");
  }
}

void TirChecker::Indices(const Buffer& buffer, const std::vector<PrimExpr>& indices,
                         const char* access, Span span) {
  size_t rank = buffer->shape().size();
  if (indices.size() != rank) {
    Error(span, std::string(access) + " buffer " + QuotedTirName(buffer->name()) + " has " +
                    Plural(indices.size(), "index", "indices") + " but the buffer has " +
                    Plural(rank, "dimension", "dimensions"));
  }
  for (size_t i = 0; i < indices.size(); ++i) {
    if (indices[i] == nullptr) {
      Error(span, "index " + std::to_string(i) + " of a " + access + " buffer " +
                      QuotedTirName(buffer->name()) + " is missing");
      continue;
    }
    Expr(indices[i], span);
    Integer(indices[i],
            "index " + std::to_string(i) + " of buffer " + QuotedTirName(buffer->name()),
            Pick(indices[i]->span(), span));
  }
}

void TirChecker::Region(const BufferRegion& region, const char* access, Span span) {
  if (region.buffer == nullptr) return;
  UseBuffer(region.buffer, access, span);
  for (const Range& range : region.region) {
    if (range.min) Expr(range.min, span);
    if (range.extent) Expr(range.extent, span);
  }
}

void TirChecker::Expr(const PrimExpr& expr, Span context) {
  if (expr == nullptr) {
    Error(context, "an expression is missing");
    return;
  }
  if (const auto* var = As<TirVarNode>(expr)) {
    UseVar(*var, context);  // a var's own span is its definition's
    return;
  }
  Span span = Pick(expr->span(), context);
  if (const auto* let = As<LetNode>(expr)) {
    // T.Let(body, where={v: value}): v is defined in the body only.
    Expr(let->value(), span);
    size_t mark = Mark();
    if (let->var()) DefineVar(let->var().get(), "variable " + QuotedTirName(let->var()->name()));
    Expr(let->body(), span);
    PopTo(mark);
    if (let->var() && let->value() && let->var()->dtype() != let->value()->dtype()) {
      Error(span, "T.Let binds " + QuotedTirName(let->var()->name()) + " of dtype " +
                      let->var()->dtype().ToString() + " to a value of dtype " +
                      let->value()->dtype().ToString());
    }
    return;
  }
  if (const auto* load = As<BufferLoadNode>(expr)) {
    if (load->buffer() == nullptr) {
      Error(span, "a buffer load has no buffer");
      return;
    }
    UseBuffer(load->buffer(), "load from", span);
    Indices(load->buffer(), load->indices(), "load from", span);
    return;
  }
  ForEachChild(expr, [&](const PrimExpr& child) { Expr(child, span); });
}

void TirChecker::Stmt(const ir::Stmt& stmt, Span context) {
  if (stmt == nullptr) {
    Error(context, "a statement is missing");
    return;
  }
  VisitStmt(*stmt, Pick(stmt->span(), context));
}

void TirChecker::VisitStmt_(const LetStmtNode& let, Span span) {
  Expr(let.value(), span);
  size_t mark = Mark();
  if (let.var()) DefineVar(let.var().get(), "variable " + QuotedTirName(let.var()->name()));
  Stmt(let.body(), span);
  PopTo(mark);
}

void TirChecker::VisitStmt_(const IfThenElseNode& branch, Span span) {
  Expr(branch.cond(), span);
  Stmt(branch.then_case(), span);
  if (branch.else_case()) Stmt(branch.else_case(), span);
}

void TirChecker::VisitStmt_(const AllocateNode& alloc, Span span) {
  for (const PrimExpr& extent : alloc.extents()) Expr(extent, span);
  size_t mark = Mark();
  if (alloc.buffer_var()) {
    DefineVar(alloc.buffer_var().get(), "variable " + QuotedTirName(alloc.buffer_var()->name()));
  }
  Stmt(alloc.body(), span);
  PopTo(mark);
}

void TirChecker::VisitStmt_(const DeclBufferNode& decl, Span span) {
  size_t mark = Mark();
  if (decl.buffer()) {
    UseShape(decl.buffer(), span);
    DefineBuffer(decl.buffer());
  }
  Stmt(decl.body(), span);
  PopTo(mark);
}

void TirChecker::VisitStmt_(const AllocBufferNode& alloc, Span span) {
  size_t mark = Mark();
  if (alloc.buffer()) {
    UseShape(alloc.buffer(), span);
    DefineBuffer(alloc.buffer());
  }
  Stmt(alloc.body(), span);
  PopTo(mark);
}

void TirChecker::VisitStmt_(const AssertStmtNode& assert_stmt, Span span) {
  Expr(assert_stmt.cond(), span);
  Bool(assert_stmt.cond(), "the condition of an assert", span);
  if (assert_stmt.error_kind().empty()) Error(span, "an assert has an empty error kind");
}

void TirChecker::VisitStmt_(const WhileNode& loop, Span span) {
  Expr(loop.cond(), span);
  Bool(loop.cond(), "the condition of a while loop", span);
  size_t mark = Mark();
  Stmt(loop.body(), span);
  PopTo(mark);
}

void TirChecker::VisitStmt_(const AttrStmtNode& attr, Span span) {
  const AttrTarget& target = attr.target();
  if (attr.attr_key().empty()) Error(span, "an attribute statement has an empty key");
  Expr(attr.value(), span);
  size_t mark = Mark();
  switch (target.kind) {
    case AttrTarget::Kind::kNone:
      break;
    case AttrTarget::Kind::kExpr:
      Expr(target.expr, span);
      break;
    case AttrTarget::Kind::kThread:
      if (target.var == nullptr) {
        Error(span, "a thread launch has no thread variable");
        break;
      }
      if (attr.is_thread_launch()) {
        // T.launch_thread defines its var for the body; the extent is an integer of its dtype.
        Integer(attr.value(), "the extent of thread " + QuotedTirName(target.thread_tag), span);
        if (attr.value() && attr.value()->dtype() != target.var->dtype()) {
          Error(span, "thread variable " + QuotedTirName(target.var->name()) + " is " +
                          target.var->dtype().ToString() + " but its extent is " +
                          attr.value()->dtype().ToString());
        }
        DefineVar(target.var.get(), "thread variable " + QuotedTirName(target.var->name()));
      } else {
        UseVar(*target.var, span);
      }
      break;
    case AttrTarget::Kind::kCommReducer: {
      const CommReducer& r = *target.reducer;
      if (r.lhs.size() != r.rhs.size() || r.lhs.size() != r.result.size() ||
          r.lhs.size() != r.identity.size()) {
        Error(span, "a T.comm_reducer has " +
                        Plural(r.lhs.size() + r.rhs.size(), "parameter", "parameters") + ", " +
                        Plural(r.result.size(), "result", "results") + " and " +
                        Plural(r.identity.size(), "identity element", "identity elements"));
      }
      for (const PrimExpr& e : r.identity) Expr(e, span);
      size_t lambda = Mark();
      for (const TirVar& v : r.lhs)
        DefineVar(v.get(), "reducer parameter " + QuotedTirName(v->name()));
      for (const TirVar& v : r.rhs)
        DefineVar(v.get(), "reducer parameter " + QuotedTirName(v->name()));
      for (const PrimExpr& e : r.result) Expr(e, span);
      PopTo(lambda);
      break;
    }
  }
  Stmt(attr.body(), span);
  PopTo(mark);
}

void TirChecker::For(const ForNode& loop, Span span) {
  std::string name = loop.loop_var() ? QuotedTirName(loop.loop_var()->name()) : "'?'";
  Expr(loop.min(), span);
  Expr(loop.extent(), span);
  Integer(loop.min(), "the start of loop " + name, span);
  Integer(loop.extent(), "the extent of loop " + name, span);
  size_t mark = Mark();
  if (loop.loop_var() == nullptr) {
    Error(span, "a loop has no loop variable");
  } else {
    Integer(loop.loop_var(), "loop variable " + name, span);
    DefineVar(loop.loop_var().get(), "loop variable " + name);
  }
  Stmt(loop.body(), span);
  PopTo(mark);
}

void TirChecker::Realize(const BlockRealizeNode& realize, Span span) {
  if (realize.block() == nullptr) {
    Error(span, "a block realize has no block");
    return;
  }
  const BlockNode& block = *realize.block();
  std::string name = "block \"" + block.name_hint() + "\"";
  const std::vector<IterVar>& iters = block.iter_vars();
  const std::vector<PrimExpr>& values = realize.iter_values();
  if (values.size() != iters.size()) {
    Error(span, name + " has " + Plural(iters.size(), "iter variable", "iter variables") + " but " +
                    Plural(values.size(), "iter value", "iter values"));
  }
  for (size_t i = 0; i < values.size(); ++i) {
    Expr(values[i], span);
    if (i < iters.size() && values[i] && iters[i].var &&
        values[i]->dtype() != iters[i].var->dtype()) {
      Error(span, "iter variable " + QuotedTirName(iters[i].var->name()) + " of " + name + " is " +
                      iters[i].var->dtype().ToString() + " but its value is " +
                      values[i]->dtype().ToString());
    }
  }
  if (realize.predicate()) {
    Expr(realize.predicate(), span);
    if (!realize.predicate()->dtype().is_bool()) {
      Error(span, "the predicate of " + name + " is " + realize.predicate()->dtype().ToString() +
                      ", not bool");
    }
  }
  Block(block, Pick(block.span(), span));
}

void TirChecker::Block(const BlockNode& block, Span span) {
  std::string name = "block \"" + block.name_hint() + "\"";
  bool has_reduce = false;
  for (const IterVar& iter : block.iter_vars()) {
    if (iter.dom.min) Expr(iter.dom.min, span);
    if (iter.dom.extent) Expr(iter.dom.extent, span);
    has_reduce |= iter.type == IterVarType::kCommReduce;
  }
  size_t mark = Mark();
  for (const IterVar& iter : block.iter_vars()) {
    if (iter.var == nullptr) {
      Error(span, name + " has an iter variable that is missing");
      continue;
    }
    Integer(iter.var, "iter variable " + QuotedTirName(iter.var->name()) + " of " + name, span);
    DefineVar(iter.var.get(),
              "block iter variable " + QuotedTirName(iter.var->name()) + " of " + name);
  }
  for (const Buffer& buffer : block.alloc_buffers()) {
    if (buffer == nullptr) continue;
    UseShape(buffer, Pick(buffer->span(), span));
    DefineBuffer(buffer);
  }
  for (const MatchBufferRegion& match : block.match_buffers()) {
    Region(match.source, "T.match_buffer of", span);
    if (match.buffer == nullptr) continue;
    BindShapeVars(match.buffer);
    UseShape(match.buffer, Pick(match.buffer->span(), span));
    DefineBuffer(match.buffer);
  }
  for (const BufferRegion& region : block.reads()) Region(region, "T.reads of", span);
  for (const BufferRegion& region : block.writes()) Region(region, "T.writes of", span);
  if (block.init()) {
    if (!has_reduce) Error(span, name + " has T.init() but no reduction iter variable");
    Stmt(block.init(), span);
  }
  Stmt(block.body(), span);
  PopTo(mark);
}

void TirChecker::Store(const BufferStoreNode& store, Span span) {
  if (store.buffer() == nullptr) {
    Error(span, "a store has no buffer");
    return;
  }
  const Buffer& buffer = store.buffer();
  UseBuffer(buffer, "store to", span);
  Indices(buffer, store.indices(), "store to", span);
  Expr(store.value(), span);
  if (store.value() && store.value()->dtype() != buffer->dtype()) {
    Error(span, "store to buffer " + QuotedTirName(buffer->name()) + " of dtype " +
                    buffer->dtype().ToString() + " has a value of dtype " +
                    store.value()->dtype().ToString());
  }
}

}  // namespace

void CheckPrimFunc(const PrimFuncNode& func, const std::string& name,
                   std::vector<Diagnostic>* out) {
  TirChecker(func, name, out).Run();
}

}  // namespace pipesplit::analysis
