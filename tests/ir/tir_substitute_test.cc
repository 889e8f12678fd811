// SubstituteTirVars: a var is replaced in statements, expressions and the buffers that name it,
// each such buffer rebuilt once and followed by every reference; untouched functions come back
// as the same node.
#include "pipesplit/ir/tir_substitute.h"

#include <gtest/gtest.h>

#include <vector>

#include "pipesplit/ir/prim_text.h"
#include "pipesplit/ir/tir.h"

namespace pipesplit::ir {
namespace {

PrimExpr I(int64_t v) { return IntImm(v); }

// def f(A: T.Buffer((n,)), B: T.Buffer((4,))):
//   for i in range(n):
//     with T.block("b"): T.reads(A[i]) T.writes(B[0])
//       C = T.alloc_buffer((n,))
//       C[i] = A[i]; B[0] = C[i]
struct Func {
  TirVar n = MakeTirVar("n");
  TirVar i = MakeTirVar("i");
  Buffer a = MakeBuffer("A", DataType::Float(32), {n});
  Buffer b = MakeBuffer("B", DataType::Float(32), {I(4)});
  Buffer c = MakeBuffer("C", DataType::Float(32), {n});
  PrimFunc func;

  Func() {
    auto load = [&](const Buffer& buf) {
      return Make<BufferLoadNode>(buf, std::vector<PrimExpr>{i});
    };
    Stmt body = Make<SeqStmtNode>(
        std::vector<Stmt>{Make<BufferStoreNode>(c, load(a), std::vector<PrimExpr>{i}),
                          Make<BufferStoreNode>(b, load(c), std::vector<PrimExpr>{I(0)})});
    BlockNode::Fields f;
    f.name_hint = "b";
    f.reads = {BufferRegion{a, {Range{i, I(1)}}}};
    f.writes = {BufferRegion{b, {Range{I(0), I(1)}}}};
    f.alloc_buffers = {c};
    f.body = body;
    Stmt realize = Make<BlockRealizeNode>(std::vector<PrimExpr>{}, BoolImm(true),
                                          Make<BlockNode>(std::move(f)));
    PrimFuncNode::Fields fields;
    fields.name = "f";
    TirVar pa = MakeTirVar("A", DataType::Handle());
    TirVar pb = MakeTirVar("B", DataType::Handle());
    fields.params = {pa, pb};
    fields.buffer_map = {{pa, a}, {pb, b}};
    fields.body = Make<ForNode>(i, I(0), n, ForKind::kSerial, realize);
    func = Make<PrimFuncNode>(std::move(fields));
  }
};

TEST(SubstituteTirVarsTest, ReplacesInBuffersAndFollowsThem) {
  Func f;
  TirVar m = MakeTirVar("m");
  PrimFunc out = SubstituteTirVars(f.func, TirVarMap{{f.n.get(), m}});
  ASSERT_NE(out, f.func);
  const Buffer& a = *out->BufferOf(out->params()[0].get());
  EXPECT_NE(a, f.a);
  EXPECT_EQ(a->shape()[0], m);
  EXPECT_EQ(a->data(), f.a->data());                       // the same data var
  EXPECT_EQ(*out->BufferOf(out->params()[1].get()), f.b);  // untouched buffer kept
  const auto* loop = As<ForNode>(out->body());
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->extent(), m);
  const BlockNode& block = *As<BlockRealizeNode>(loop->body())->block();
  EXPECT_EQ(block.reads()[0].buffer, a);  // the rebuilt A everywhere
  const Buffer& c = block.alloc_buffers()[0];
  EXPECT_EQ(c->shape()[0], m);
  const auto* seq = As<SeqStmtNode>(block.body());
  const auto* store_c = As<BufferStoreNode>(seq->seq()[0]);
  EXPECT_EQ(store_c->buffer(), c);
  EXPECT_EQ(As<BufferLoadNode>(store_c->value())->buffer(), a);
  const auto* store_b = As<BufferStoreNode>(seq->seq()[1]);
  EXPECT_EQ(store_b->buffer(), f.b);
  EXPECT_EQ(As<BufferLoadNode>(store_b->value())->buffer(), c);
}

TEST(SubstituteTirVarsTest, SameNodeWhenTheVarDoesNotOccur) {
  Func f;
  TirVar other = MakeTirVar("k");
  EXPECT_EQ(SubstituteTirVars(f.func, TirVarMap{{other.get(), I(3)}}), f.func);
  EXPECT_EQ(SubstituteTirVars(f.func, TirVarMap{}), f.func);
}

}  // namespace
}  // namespace pipesplit::ir
