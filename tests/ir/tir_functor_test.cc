// StmtFunctor, PrimExprFunctor, StmtVisitor and StmtMutator: dispatch of every kind, the
// visitor's order, the mutator's sharing of unchanged nodes.
#include "pipesplit/ir/tir_functor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pipesplit/ir/prim_text.h"

namespace pipesplit::ir {
namespace {

PrimExpr I(int64_t v) { return IntImm(v); }
PrimExpr Add(PrimExpr a, PrimExpr b) { return MakeBinary(BinaryOp::kAdd, a, b); }

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : "; ") + item;
  return out;
}

// One statement of every kind, each with the name of its handler.
std::vector<std::pair<Stmt, std::string>> OneOfEachStmt() {
  TirVar i = MakeTirVar("i");
  Buffer a = MakeBuffer("A", DataType::Float(32), {I(4)});
  Stmt eval = Make<EvaluateNode>(I(0));
  BlockNode::Fields fields;
  fields.name_hint = "b";
  fields.body = eval;
  Block block = Make<BlockNode>(std::move(fields));
  return {
      {Make<ForNode>(i, I(0), I(4), ForKind::kSerial, eval), "For"},
      {block, "Block"},
      {Make<BlockRealizeNode>(std::vector<PrimExpr>{}, BoolImm(true), block), "BlockRealize"},
      {Make<SeqStmtNode>(std::vector<Stmt>{eval, eval}), "SeqStmt"},
      {Make<BufferStoreNode>(a, FloatImm(1.0), std::vector<PrimExpr>{I(0)}), "BufferStore"},
      {Make<LetStmtNode>(i, I(1), eval), "LetStmt"},
      {Make<IfThenElseNode>(BoolImm(true), eval, nullptr), "IfThenElse"},
      {eval, "Evaluate"},
      {Make<AllocateNode>(MakeTirVar("p", DataType::Handle()), DataType::Float(32),
                          std::vector<PrimExpr>{I(4)}, "global", eval),
       "Allocate"},
      {Make<DeclBufferNode>(a, eval), "DeclBuffer"},
      {Make<AssertStmtNode>(BoolImm(true), "RuntimeError", std::vector<std::string>{"m"}),
       "AssertStmt"},
      {Make<WhileNode>(BoolImm(false), eval), "While"},
      {Make<AttrStmtNode>(AttrTarget{}, "pragma_scope", I(0), eval), "AttrStmt"},
      {Make<AllocBufferNode>(a, eval), "AllocBuffer"},
  };
}

class StmtNamer : public StmtFunctor<std::string(const StmtNode&, int)> {
 private:
  std::string VisitStmt_(const ForNode&, int n) override { return "For" + Suffix(n); }
  std::string VisitStmt_(const BlockNode&, int n) override { return "Block" + Suffix(n); }
  std::string VisitStmt_(const BlockRealizeNode&, int n) override {
    return "BlockRealize" + Suffix(n);
  }
  std::string VisitStmt_(const SeqStmtNode&, int n) override { return "SeqStmt" + Suffix(n); }
  std::string VisitStmt_(const BufferStoreNode&, int n) override {
    return "BufferStore" + Suffix(n);
  }
  std::string VisitStmt_(const LetStmtNode&, int n) override { return "LetStmt" + Suffix(n); }
  std::string VisitStmt_(const IfThenElseNode&, int n) override { return "IfThenElse" + Suffix(n); }
  std::string VisitStmt_(const EvaluateNode&, int n) override { return "Evaluate" + Suffix(n); }
  std::string VisitStmt_(const AllocateNode&, int n) override { return "Allocate" + Suffix(n); }
  std::string VisitStmt_(const DeclBufferNode&, int n) override { return "DeclBuffer" + Suffix(n); }
  std::string VisitStmt_(const AssertStmtNode&, int n) override { return "AssertStmt" + Suffix(n); }
  std::string VisitStmt_(const WhileNode&, int n) override { return "While" + Suffix(n); }
  std::string VisitStmt_(const AttrStmtNode&, int n) override { return "AttrStmt" + Suffix(n); }
  std::string VisitStmt_(const AllocBufferNode&, int n) override {
    return "AllocBuffer" + Suffix(n);
  }
  static std::string Suffix(int n) { return n == 0 ? "" : "#" + std::to_string(n); }
};

TEST(TirFunctorTest, EveryStatementKindDispatchesToItsHandler) {
  StmtNamer namer;
  auto stmts = OneOfEachStmt();
  ASSERT_EQ(stmts.size(),
            static_cast<size_t>(NodeKind::kAllocBuffer) - static_cast<size_t>(NodeKind::kFor) + 1);
  for (const auto& [stmt, name] : stmts) {
    EXPECT_EQ(namer.VisitStmt(*stmt, 0), name);
    EXPECT_EQ(namer.VisitStmt(*stmt, 7), name + "#7");  // extra arguments reach the handler
  }
}

class ExprNamer : public PrimExprFunctor<std::string(const PrimExprNode&)> {
 private:
  std::string VisitExpr_(const IntImmNode&) override { return "IntImm"; }
  std::string VisitExpr_(const FloatImmNode&) override { return "FloatImm"; }
  std::string VisitExpr_(const TirVarNode&) override { return "TirVar"; }
  std::string VisitExpr_(const BinaryNode&) override { return "Binary"; }
  std::string VisitExpr_(const NotNode&) override { return "Not"; }
  std::string VisitExpr_(const CastNode&) override { return "Cast"; }
  std::string VisitExpr_(const SelectNode&) override { return "Select"; }
  std::string VisitExpr_(const BufferLoadNode&) override { return "BufferLoad"; }
  std::string VisitExpr_(const PrimCallNode&) override { return "PrimCall"; }
  std::string VisitExpr_(const TirStringImmNode&) override { return "TirStringImm"; }
  std::string VisitExpr_(const LetNode&) override { return "Let"; }
};

TEST(TirFunctorTest, EveryPrimExprKindDispatchesToItsHandler) {
  TirVar n = MakeTirVar("n");
  Buffer a = MakeBuffer("A", DataType::Float(32), {I(4)});
  std::vector<std::pair<PrimExpr, std::string>> exprs = {
      {I(1), "IntImm"},
      {FloatImm(1.0), "FloatImm"},
      {n, "TirVar"},
      {Add(n, n), "Binary"},
      {Make<NotNode>(BoolImm(true)), "Not"},
      {Make<CastNode>(DataType::Int(32), n), "Cast"},
      {Make<SelectNode>(BoolImm(true), n, n), "Select"},
      {Make<BufferLoadNode>(a, std::vector<PrimExpr>{I(0)}), "BufferLoad"},
      {Make<PrimCallNode>("exp", std::vector<PrimExpr>{FloatImm(1.0)}, DataType::Float(32)),
       "PrimCall"},
      {Make<TirStringImmNode>("shared"), "TirStringImm"},
      {Make<LetNode>(n, I(1), n), "Let"},
  };
  ASSERT_EQ(exprs.size(),
            static_cast<size_t>(NodeKind::kLet) - static_cast<size_t>(NodeKind::kIntImm) + 1);
  ExprNamer namer;
  for (const auto& [expr, name] : exprs) EXPECT_EQ(namer.VisitExpr(*expr), name);
}

// Records statements (by handler) and expressions (by text) in visiting order.
class Recorder : public StmtVisitor {
 public:
  std::vector<std::string> log;
  void VisitPrimExpr(const PrimExpr& e) override { log.push_back("e:" + ToString(e)); }

 protected:
  using StmtVisitor::VisitStmt_;
  void VisitStmt_(const ForNode& op) override {
    log.push_back("For " + op.loop_var()->name());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockNode& op) override {
    log.push_back("Block " + op.name_hint());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BlockRealizeNode& op) override {
    log.push_back("BlockRealize");
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const SeqStmtNode& op) override {
    log.push_back("Seq");
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const BufferStoreNode& op) override {
    log.push_back("Store " + op.buffer()->name());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const LetStmtNode& op) override {
    log.push_back("Let " + op.var()->name());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const IfThenElseNode& op) override {
    log.push_back("If");
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const EvaluateNode& op) override {
    log.push_back("Evaluate");
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const AllocateNode& op) override {
    log.push_back("Allocate " + op.buffer_var()->name());
    StmtVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const DeclBufferNode& op) override {
    log.push_back("Decl " + op.buffer()->name());
    StmtVisitor::VisitStmt_(op);
  }
};

// for i in range(8):
//   with T.block("B"): vi = T.axis.spatial(8, i); T.reads(A[vi]); T.writes(C[vi])
//     x = A[vi] + 1
//     if x < 3: C[vi] = x else: T.evaluate(vi)
//   p = T.allocate([n], ...); D = T.decl_buffer(...); T.evaluate(2)
struct Program {
  TirVar i = MakeTirVar("i");
  TirVar vi = MakeTirVar("vi");
  TirVar x = MakeTirVar("x");
  TirVar n = MakeTirVar("n");
  Buffer a = MakeBuffer("A", DataType::Int(64), {I(8)});
  Buffer c = MakeBuffer("C", DataType::Int(64), {I(8)});
  Buffer d = MakeBuffer("D", DataType::Int(64), {n});
  Stmt then_case = Make<BufferStoreNode>(c, x, std::vector<PrimExpr>{vi});
  Stmt else_case = Make<EvaluateNode>(vi);
  Stmt tail;
  Stmt root;

  Program() {
    Stmt branch = Make<IfThenElseNode>(MakeBinary(BinaryOp::kLT, x, I(3)), then_case, else_case);
    Stmt let =
        Make<LetStmtNode>(x, Add(Make<BufferLoadNode>(a, std::vector<PrimExpr>{vi}), I(1)), branch);
    BlockNode::Fields f;
    f.name_hint = "B";
    f.iter_vars = {IterVar{vi, Range{I(0), I(8)}, IterVarType::kDataPar}};
    f.reads = {BufferRegion{a, {Range{vi, I(1)}}}};
    f.writes = {BufferRegion{c, {Range{vi, I(1)}}}};
    f.body = let;
    Stmt realize =
        Make<BlockRealizeNode>(std::vector<PrimExpr>{i}, BoolImm(true), Make<BlockNode>(f));
    Stmt loop = Make<ForNode>(i, I(0), I(8), ForKind::kSerial, realize);
    tail = Make<AllocateNode>(d->data(), DataType::Int(64), std::vector<PrimExpr>{n}, "global",
                              Make<DeclBufferNode>(d, Make<EvaluateNode>(I(2))));
    root = Make<SeqStmtNode>(std::vector<Stmt>{loop, tail});
  }
};

TEST(TirFunctorTest, VisitorVisitsEveryChildInOrder) {
  Program p;
  Recorder recorder;
  recorder.VisitStmt(p.root);
  EXPECT_EQ(Join(recorder.log),
            "Seq; For i; e:0; e:8; BlockRealize; e:i; e:T.bool(True); Block B; e:0; e:8; e:vi; "
            "e:1; e:vi; e:1; Let x; e:A[vi] + 1; If; e:x < 3; Store C; e:x; e:vi; Evaluate; "
            "e:vi; Allocate D; e:n; Decl D; Evaluate; e:2");
}

TEST(TirFunctorTest, VisitorSkipsNullChildren) {
  Recorder recorder;
  recorder.VisitStmt(Stmt());
  recorder.VisitStmt(Make<IfThenElseNode>(BoolImm(true), Make<EvaluateNode>(I(0)), nullptr));
  EXPECT_EQ(Join(recorder.log), "If; e:T.bool(True); Evaluate; e:0");
}

TEST(TirFunctorTest, MutatorReturnsTheSameNodeWhenNothingChanges) {
  Program p;
  StmtMutator identity;
  EXPECT_EQ(identity.VisitStmt(p.root), p.root);
  for (const auto& [stmt, name] : OneOfEachStmt()) {
    EXPECT_EQ(identity.VisitStmt(stmt), stmt) << name;
  }
  EXPECT_EQ(identity.VisitStmt(Stmt()), nullptr);
}

// Replaces one var in every expression.
class VarReplacer : public StmtMutator {
 public:
  VarReplacer(const TirVarNode* from, PrimExpr to) : from_(from), to_(std::move(to)) {}
  PrimExpr VisitPrimExpr(const PrimExpr& e) override {
    return Substitute(e, TirVarMap{{from_, to_}});
  }

 private:
  const TirVarNode* from_;
  PrimExpr to_;
};

TEST(TirFunctorTest, MutatorRebuildsOnlyThePathToAChangedLeaf) {
  Program p;
  // n occurs only in the allocation's extent (and D's shape, which is not an expression field).
  Stmt out = VarReplacer(p.n.get(), I(16)).VisitStmt(p.root);
  ASSERT_NE(out, p.root);
  const auto* seq = As<SeqStmtNode>(out);
  ASSERT_NE(seq, nullptr);
  const auto* old_seq = As<SeqStmtNode>(p.root);
  EXPECT_EQ(seq->seq()[0], old_seq->seq()[0]);  // the loop is untouched and shared
  const auto* alloc = As<AllocateNode>(seq->seq()[1]);
  ASSERT_NE(alloc, nullptr);
  EXPECT_NE(seq->seq()[1], p.tail);
  EXPECT_EQ(ToString(alloc->extents()[0]), "16");
  EXPECT_EQ(alloc->body(), As<AllocateNode>(p.tail)->body());  // below the change: shared
  EXPECT_EQ(alloc->buffer_var(), As<AllocateNode>(p.tail)->buffer_var());
}

// Replaces the T.evaluate(vi) statement in the else branch.
class EvaluateReplacer : public StmtMutator {
 protected:
  using StmtMutator::VisitStmt_;
  Stmt VisitStmt_(const EvaluateNode& op, const Stmt& self) override {
    if (Is<TirVarNode>(op.value())) return Make<EvaluateNode>(I(5));
    return StmtMutator::VisitStmt_(op, self);
  }
};

TEST(TirFunctorTest, MutatorRebuildsEnclosingStatementsOfANewLeaf) {
  Program p;
  Stmt out = EvaluateReplacer().VisitStmt(p.root);
  ASSERT_NE(out, p.root);
  const auto& seq = As<SeqStmtNode>(out)->seq();
  EXPECT_EQ(seq[1], p.tail);
  const auto* loop = As<ForNode>(seq[0]);
  ASSERT_NE(loop, nullptr);
  const auto* realize = As<BlockRealizeNode>(loop->body());
  ASSERT_NE(realize, nullptr);
  const auto* let = As<LetStmtNode>(realize->block()->body());
  ASSERT_NE(let, nullptr);
  const auto* branch = As<IfThenElseNode>(let->body());
  ASSERT_NE(branch, nullptr);
  EXPECT_EQ(branch->then_case(), p.then_case);
  ASSERT_NE(branch->else_case(), p.else_case);
  EXPECT_EQ(ToString(As<EvaluateNode>(branch->else_case())->value()), "5");
  EXPECT_EQ(realize->block()->reads().size(), 1u);
  EXPECT_EQ(realize->block()->name_hint(), "B");
}

TEST(TirFunctorTest, VisitorVisitsTheExpressionsOfNewerStatements) {
  // while n < 4: launch threadIdx.x (8): attr(reducer) = 0: assert n >= 0: alloc B: eval(tx)
  TirVar n = MakeTirVar("n");
  TirVar tx = MakeTirVar("tx");
  TirVar x = MakeTirVar("x", DataType::Float(32));
  TirVar y = MakeTirVar("y", DataType::Float(32));
  Buffer b = MakeBuffer("B", DataType::Float(32), {I(4)}, "shared");
  auto reducer = std::make_shared<CommReducer>();
  reducer->lhs = {x};
  reducer->rhs = {y};
  reducer->result = {Add(x, y)};
  reducer->identity = {FloatImm(0.0)};
  AttrTarget reduce;
  reduce.kind = AttrTarget::Kind::kCommReducer;
  reduce.reducer = reducer;
  AttrTarget thread;
  thread.kind = AttrTarget::Kind::kThread;
  thread.var = tx;
  thread.thread_tag = "threadIdx.x";
  Stmt inner = Make<AssertStmtNode>(MakeBinary(BinaryOp::kGE, n, I(0)), "RuntimeError",
                                    std::vector<std::string>{"negative"});
  inner =
      Make<SeqStmtNode>(std::vector<Stmt>{inner, Make<AllocBufferNode>(b, Make<EvaluateNode>(tx))});
  Stmt attr = Make<AttrStmtNode>(reduce, "reduce_scope", I(0), inner);
  Stmt launch = Make<AttrStmtNode>(thread, "thread_extent", I(8), attr);
  Stmt loop = Make<WhileNode>(MakeBinary(BinaryOp::kLT, n, I(4)), launch);
  Recorder recorder;
  recorder.VisitStmt(loop);
  EXPECT_EQ(Join(recorder.log),
            "e:n < 4; e:8; e:x + y; e:T.float32(0.0); e:0; Seq; e:n >= 0; Evaluate; e:tx");
  EXPECT_TRUE(As<AttrStmtNode>(launch)->is_thread_launch());
  EXPECT_FALSE(As<AttrStmtNode>(attr)->is_thread_launch());
  // Rewriting n rebuilds the loop and the assert, and leaves the reducer as it is.
  Stmt out = VarReplacer(n.get(), I(2)).VisitStmt(loop);
  ASSERT_NE(out, loop);
  const auto* new_launch = As<AttrStmtNode>(As<WhileNode>(out)->body());
  ASSERT_NE(new_launch, nullptr);
  EXPECT_EQ(new_launch->target().var, tx);
  EXPECT_EQ(As<AttrStmtNode>(new_launch->body())->target().reducer, reducer);
}

}  // namespace
}  // namespace pipesplit::ir
