// Well-formedness of hand-built TIR (invariants 10 to 16 and 18): the violations the parser cannot
// produce (it resolves names in scope and checks index counts itself) but a pass building IR
// can, each located at the offending node's synthetic span.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/analysis/well_formed.h"
#include "tests/analysis/well_formed_test_util.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT
using ::testing::ElementsAre;
using ::testing::IsEmpty;

PrimExpr I32(int64_t v) { return IntImm(v, DataType::Int(32)); }
PrimExpr F(double v) { return FloatImm(v); }
TirVar Idx(const std::string& name) { return MakeTirVar(name, DataType::Int(32)); }

Stmt Store(const Buffer& b, PrimExpr value, std::vector<PrimExpr> indices, Span span) {
  return ir::Make<BufferStoreNode>(b, std::move(value), std::move(indices), span);
}
PrimExpr Load(const Buffer& b, std::vector<PrimExpr> indices, Span span = {}) {
  return ir::Make<BufferLoadNode>(b, std::move(indices), span);
}
Stmt Loop(const TirVar& var, PrimExpr extent, Stmt body, Span span = {}) {
  return ir::Make<ForNode>(var, I32(0), std::move(extent), ForKind::kSerial, std::move(body),
                           std::string{}, AttrMap{}, span);
}
// with T.block(name): iter vars bound to `values`; body
Stmt Realize(const std::string& name, std::vector<IterVar> iters, std::vector<PrimExpr> values,
             Stmt body, Span span, Stmt init = nullptr, std::vector<Buffer> allocs = {}) {
  BlockNode::Fields f;
  f.name_hint = name;
  f.iter_vars = std::move(iters);
  f.init = std::move(init);
  f.alloc_buffers = std::move(allocs);
  f.body = std::move(body);
  auto block = ir::Make<BlockNode>(std::move(f), span);
  return ir::Make<BlockRealizeNode>(std::move(values), BoolImm(true), block, span);
}
IterVar Spatial(const TirVar& var, int64_t extent) {
  return {var, {IntImm(0, var->dtype()), IntImm(extent, var->dtype())}, IterVarType::kDataPar};
}

std::vector<std::string> CheckKernel(const PrimFunc& func) {
  IRModule mod;
  mod.Add(GV("k", func), func);
  return Check(mod);
}

TEST(WellFormedTirIrTest, AcceptsAKernelWithABlock) {
  Buffer a = Buf("A", {I32(4)}), b = Buf("B", {I32(4)});
  TirVar i = Idx("i"), vi = Idx("vi");
  Stmt body =
      Loop(i, I32(4),
           Realize("B", {Spatial(vi, 4)}, {i}, Store(b, Load(a, {vi}), {vi}, At(5, 9)), At(4, 9)));
  EXPECT_THAT(CheckKernel(Kernel("k", {a, b}, body)), IsEmpty());
}

TEST(WellFormedTirIrTest, UndefinedBuffers) {
  Buffer a = Buf("A", {I32(4)}), c = Buf("C", {I32(4)}), d = Buf("D", {I32(4)});
  TirVar i = Idx("i");
  Stmt body = Loop(i, I32(4),
                   MakeSeq({Store(c, Load(a, {i}), {i}, At(5, 13)),
                            Store(a, Load(d, {i}, At(6, 20)), {i}, At(6, 13))}));
  EXPECT_THAT(
      CheckKernel(Kernel("k", {a}, body)),
      ElementsAre("hand.py:5:13: store to buffer 'C', which is not defined in prim function 'k'",
                  "hand.py:6:20: load from buffer 'D', which is not defined in prim function 'k'"));
}

TEST(WellFormedTirIrTest, BufferAllocatedInAnotherBlock) {
  Buffer a = Buf("A", {I32(4)}), tmp = Buf("tmp", {I32(4)});
  Stmt first =
      Realize("B1", {}, {}, Store(tmp, F(0), {I32(0)}, At(5, 13)), At(4, 9), nullptr, {tmp});
  Stmt second = Realize("B2", {}, {}, Store(a, Load(tmp, {I32(0)}, At(7, 20)), {I32(0)}, At(7, 13)),
                        At(6, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, MakeSeq({first, second}))),
              ElementsAre("hand.py:7:20: load from buffer 'tmp' outside the scope that defines it "
                          "in prim function 'k'"));
}

TEST(WellFormedTirIrTest, IndexCountAndIndexDtype) {
  Buffer a = Buf("A", {I32(4), I32(8)});
  Stmt body = MakeSeq({Store(a, F(0), {I32(0)}, At(4, 9)),
                       Store(a, Load(a, {I32(0), F(1.0)}, At(5, 16)), {I32(0), I32(1)}, At(5, 9))});
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, body)),
              ElementsAre("hand.py:4:9: store to buffer 'A' has 1 index but the buffer has 2 "
                          "dimensions in prim function 'k'",
                          "hand.py:5:16: index 1 of buffer 'A' is float32, not an integer in prim "
                          "function 'k'"));
}

TEST(WellFormedTirIrTest, IterValueCountAndDtype) {
  Buffer a = Buf("A", {I32(4)});
  TirVar i = Idx("i"), vi = Idx("vi"), vj = MakeTirVar("vj", DataType::Int(64));
  Stmt count = Realize("B", {Spatial(vi, 4)}, {}, Store(a, F(0), {vi}, At(5, 13)), At(4, 9));
  Stmt dtype = Loop(
      i, I32(4),
      Realize("C", {Spatial(vj, 4)}, {i},
              Store(a, F(0), {ir::Make<CastNode>(DataType::Int(32), vj)}, At(8, 13)), At(7, 13)));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, MakeSeq({count, dtype}))),
              ElementsAre("hand.py:4:9: block \"B\" has 1 iter variable but 0 iter values in prim "
                          "function 'k'",
                          "hand.py:7:13: iter variable 'vj' of block \"C\" is int64 but its value "
                          "is int32 in prim function 'k'"));
}

TEST(WellFormedTirIrTest, IterVarUsedOutsideItsBlockAndUndefinedVars) {
  Buffer a = Buf("A", {I32(4)});
  TirVar i = Idx("i"), vi = Idx("vi"), m = Idx("m");
  Stmt block = Realize("B", {Spatial(vi, 4)}, {i}, Store(a, F(0), {vi}, At(5, 13)), At(4, 9));
  Stmt body = Loop(i, I32(4), MakeSeq({block, Store(a, F(1), {vi}, At(6, 9))}), At(3, 5));
  Stmt loop = Loop(Idx("j"), m, ir::Make<EvaluateNode>(I32(0)), At(7, 5));
  EXPECT_THAT(
      CheckKernel(Kernel("k", {a}, MakeSeq({body, loop}))),
      ElementsAre("hand.py:6:9: block iter variable 'vi' of block \"B\" is used outside the "
                  "scope that defines it in prim function 'k'",
                  "hand.py:7:5: variable 'm' is not defined in prim function 'k'"));
}

TEST(WellFormedTirIrTest, LoopExtentStoreDtypeInitAndPredicate) {
  Buffer a = Buf("A", {I32(4)});
  TirVar i = Idx("i"), vi = Idx("vi");
  BlockNode::Fields f;
  f.name_hint = "B";
  f.iter_vars = {Spatial(vi, 4)};
  f.init = Store(a, F(0), {vi}, At(6, 17));
  f.body = Store(a, I32(1), {vi}, At(7, 13));
  auto block = ir::Make<BlockNode>(std::move(f), At(5, 9));
  Stmt realize = ir::Make<BlockRealizeNode>(std::vector<PrimExpr>{i}, i, block, At(5, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, Loop(i, F(4), realize, At(4, 5)))),
              ElementsAre("hand.py:4:5: the extent of loop 'i' is float32, not an integer in "
                          "prim function 'k'",
                          "hand.py:5:9: the predicate of block \"B\" is int32, not bool in prim "
                          "function 'k'",
                          "hand.py:5:9: block \"B\" has T.init() but no reduction iter variable in "
                          "prim function 'k'",
                          "hand.py:7:13: store to buffer 'A' of dtype float32 has a value of "
                          "dtype int32 in prim function 'k'"));
}

TEST(WellFormedTirIrTest, ShapeVarsBindAtTheirFirstOccurrence) {
  TirVar n = MakeTirVar("n"), m = MakeTirVar("m");
  // n binds in A's shape and is used by B's; m appears only inside a composite dim.
  Buffer a = Buf("A", {n}), b = Buf("B", {n}),
         c = Buf("C", {MakeBinary(BinaryOp::kMul, m, IntImm(2))}, DataType::Float(32), At(3, 40));
  EXPECT_THAT(CheckKernel(Kernel("k", {a, b, c}, ir::Make<EvaluateNode>(I32(0)), At(3, 5))),
              ElementsAre("hand.py:3:40: variable 'm' is not defined in prim function 'k'"));
}

// ---- Invariant 18 and the scopes of the 2026 statements ----

TEST(WellFormedTirIrTest, ConditionsOfWhileAndAssertAreBool) {
  Buffer a = Buf("A", {I32(4)});
  Stmt loop = ir::Make<WhileNode>(I32(1), Store(a, F(0), {I32(0)}, At(5, 13)), At(4, 9));
  Stmt check = ir::Make<AssertStmtNode>(I32(0), "", std::vector<std::string>{}, At(6, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, MakeSeq({loop, check}))),
              ElementsAre("hand.py:4:9: the condition of a while loop is int32, not bool in prim "
                          "function 'k'",
                          "hand.py:6:9: the condition of an assert is int32, not bool in prim "
                          "function 'k'",
                          "hand.py:6:9: an assert has an empty error kind in prim function 'k'"));
}

TEST(WellFormedTirIrTest, ThreadVarLivesInItsLaunch) {
  Buffer a = Buf("A", {I32(32)});
  TirVar tx = Idx("threadIdx_x");
  AttrTarget thread;
  thread.kind = AttrTarget::Kind::kThread;
  thread.var = tx;
  thread.thread_tag = "threadIdx.x";
  Stmt launch = ir::Make<AttrStmtNode>(thread, "thread_extent", IntImm(32),
                                       Store(a, F(0), {tx}, At(5, 13)), At(4, 9));
  Stmt after = Store(a, F(1), {tx}, At(6, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, MakeSeq({launch, after}))),
              ElementsAre("hand.py:4:9: thread variable 'threadIdx_x' is int32 but its extent is "
                          "int64 in prim function 'k'",
                          "hand.py:6:9: thread variable 'threadIdx_x' is used outside the scope "
                          "that defines it in prim function 'k'"));
}

TEST(WellFormedTirIrTest, ReducerShapeAndAttributeKey) {
  Buffer a = Buf("A", {I32(4)});
  TirVar x = MakeTirVar("x", DataType::Float(32)), y = MakeTirVar("y", DataType::Float(32));
  auto reducer = std::make_shared<CommReducer>();
  reducer->lhs = {x};
  reducer->rhs = {y};
  reducer->result = {ir::MakeBinary(BinaryOp::kAdd, x, y)};  // no identity element
  AttrTarget target;
  target.kind = AttrTarget::Kind::kCommReducer;
  target.reducer = reducer;
  Stmt attr =
      ir::Make<AttrStmtNode>(target, "", I32(0), Store(a, F(0), {I32(0)}, At(5, 9)), At(4, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, attr)),
              ElementsAre("hand.py:4:9: an attribute statement has an empty key in prim function "
                          "'k'",
                          "hand.py:4:9: a T.comm_reducer has 2 parameters, 1 result and 0 "
                          "identity elements in prim function 'k'"));
}

TEST(WellFormedTirIrTest, LetAndAllocationScopes) {
  Buffer a = Buf("A", {I32(4)});
  Buffer shared = MakeBuffer("S", DataType::Float(32), {I32(4)}, "shared");
  TirVar v = MakeTirVar("v", DataType::Float(32));
  // A[0] = T.Let(v + 1, where={v: 2}) (an int32 value for a float32 var); S used after its
  // allocation statement ends.
  PrimExpr let = ir::Make<LetNode>(v, I32(2), ir::MakeBinary(BinaryOp::kAdd, v, F(1)), At(5, 16));
  Stmt alloc =
      ir::Make<AllocBufferNode>(shared, Store(shared, F(0), {I32(0)}, At(6, 13)), At(6, 9));
  Stmt after = Store(a, Load(shared, {I32(0)}, At(7, 16)), {I32(0)}, At(7, 9));
  EXPECT_THAT(
      CheckKernel(Kernel("k", {a}, MakeSeq({Store(a, let, {I32(0)}, At(5, 9)), alloc, after}))),
      ElementsAre("hand.py:5:16: T.Let binds 'v' of dtype float32 to a value of dtype "
                  "int32 in prim function 'k'",
                  "hand.py:7:16: load from buffer 'S' outside the scope that defines it "
                  "in prim function 'k'"));
}

TEST(WellFormedTirIrTest, BufferLayoutFields) {
  // A param with a stride var and an offset var (bound by the buffer) and an offset factor 0.
  TirVar s0 = Idx("s0"), off = Idx("off");
  BufferLayout layout;
  layout.strides = {s0};
  layout.elem_offset = off;
  layout.offset_factor = 0;
  Buffer a = MakeBuffer("A", DataType::Float(32), {I32(4)}, "global", At(3, 10), layout);
  Stmt body =
      Store(a, ir::Make<CastNode>(DataType::Float(32), ir::MakeBinary(BinaryOp::kAdd, s0, off)),
            {I32(0)}, At(4, 9));
  EXPECT_THAT(CheckKernel(Kernel("k", {a}, body)),
              ElementsAre("hand.py:3:10: buffer 'A' has offset factor 0, not a positive one in "
                          "prim function 'k'"));
}

}  // namespace
}  // namespace pipesplit::analysis
