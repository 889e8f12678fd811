// Well-formedness on hand-built IR, invariants 7-9 of src/analysis/well_formed.cc (struct info
// consistency, purity, struct info presence) and the collection of every violation: exact
// messages and locations (synthetic spans of "hand.py").
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/analysis/well_formed.h"
#include "tests/analysis/well_formed_test_util.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---- 7. Struct info consistency ----

TEST(WellFormedTest, AnnotationMustDescribeTheValue) {
  Var x = V("x", F32({128, 32}));
  Var c = V("C", ir::Make<TensorSInfoNode>(DataType::Void(), 3), At(3, 9));
  Function f = Func({x}, Seq({Block({Bind(c, Add(x, x))})}, c));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:3:9: variable 'C' is annotated as "
                                          "R.Tensor(ndim=3) but its value has struct info "
                                          "R.Tensor((128, 32), dtype=\"float32\")"));
}

TEST(WellFormedTest, CallStructInfoMustAgreeWithInference) {
  Var x = V("x", F32({4}));
  Expr call = CallWith(GetOp("relax.add"), {x, x}, F32({5}), {}, {}, At(3, 13));
  Var r = V("r", F32({5}));
  Function f = Func({x}, Seq({Block({Bind(r, call)})}, r));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:13: R.add has struct info R.Tensor((5,), dtype=\"float32\"), "
                          "but its arguments give R.Tensor((4,), dtype=\"float32\")"));
  // A less precise struct info is not a contradiction.
  Expr vague =
      CallWith(GetOp("relax.add"), {x, x}, ir::Make<TensorSInfoNode>(DataType::Float(32), 1));
  Var v = V("v", vague->struct_info());
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(v, vague)})}, v)))), IsEmpty());
}

TEST(WellFormedTest, CallsThatCannotBeInferredAreReported) {
  StructInfo t = F32({4});
  Var a = V("a", t);
  Function helper = Func({a}, Seq({}, a));
  GlobalVar helper_gv = GV("helper", helper);
  Var x = V("x", t), r = V("r", t);
  Function f =
      Func({x}, Seq({Block({Bind(r, CallWith(helper_gv, {x, x}, t, {}, {}, At(3, 13)))})}, r));
  IRModule mod;
  mod.Add(helper_gv, helper);
  mod.Add(GV("main", f), f);
  EXPECT_THAT(Check(mod), ElementsAre("hand.py:3:13: cls.helper takes 1 arguments, got 2"));
}

// ---- 8. Purity ----

TEST(WellFormedTest, ImpureCallInsideDataflowBlock) {
  Var x = V("x", F32({4})), p = DV("p", VoidSInfo()), gv = V("gv", F32({4}));
  Function f =
      Func({x}, Seq({Dataflow({Bind(p, Print(x, At(4, 13))), Bind(gv, x)})}, gv), nullptr, false);
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:4:13: impure call to R.print inside a dataflow block"));
}

TEST(WellFormedTest, PureFunctionWithImpureCall) {
  Var x = V("x", F32({4})), p = V("p", VoidSInfo());
  auto ext = ir::Make<ExternFuncNode>("side_effect");
  Var q = V("q", ObjectSInfo());
  Function f = Func({x},
                    Seq({Block({Bind(p, Print(x, At(3, 13))),
                                Bind(q, CallWith(ext, {x}, ObjectSInfo(), {}, {}, At(4, 13)))})},
                        x),
                    nullptr, true, {}, At(2, 5));
  EXPECT_THAT(
      Check(Main(f)),
      ElementsAre("hand.py:3:13: pure function 'main' contains an impure call to R.print "
                  "[note hand.py:2:5: function 'main' is declared pure here]",
                  "hand.py:4:13: pure function 'main' contains an impure call to "
                  "R.call_packed(\"side_effect\") [note hand.py:2:5: function 'main' is declared "
                  "pure here]"));
  // Declared impure, or forced pure, it is accepted.
  Var y = V("y", F32({4})), p2 = V("p", VoidSInfo());
  Function g = Func({y}, Seq({Block({Bind(p2, Print(y))})}, y), nullptr, false);
  EXPECT_THAT(Check(Main(g)), IsEmpty());
  Var z = V("z", F32({4})), p3 = V("p", VoidSInfo());
  Function h =
      Func({z}, Seq({Block({Bind(p3, Print(z))})}, z), nullptr, true, {{"relax.force_pure", true}});
  EXPECT_THAT(Check(Main(h)), IsEmpty());
}

TEST(WellFormedTest, ImpureCallsInNestedFunctionsBelongToThem) {
  StructInfo t = F32({4});
  Var a = V("a", t), p = V("p", VoidSInfo());
  Function inner = Func({a}, Seq({Block({Bind(p, Print(a))})}, a), nullptr, false);
  Var g = V("g", inner->struct_info()), x = V("x", t);
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(g, inner)})}, x)))), IsEmpty());
  // Calling the impure local function from the pure one is impure.
  Var g2 = V("g", inner->struct_info()), y = V("y", t), r = V("r", t);
  Var a2 = V("a", t), p2 = V("p", VoidSInfo());
  Function inner2 = Func({a2}, Seq({Block({Bind(p2, Print(a2))})}, a2), nullptr, false);
  Function outer = Func(
      {y}, Seq({Block({Bind(g2, inner2), Bind(r, CallWith(g2, {y}, t, {}, {}, At(5, 13)))})}, r));
  EXPECT_THAT(Check(Main(outer)),
              ElementsAre("hand.py:5:13: pure function 'main' contains an impure call to g "
                          "[note <unknown>: function 'main' is declared pure here]"));
}

TEST(WellFormedTest, ForcePureRequiresAPureFunction) {
  Var x = V("x", F32({4}));
  Function f = Func({x}, Seq({}, x), nullptr, false, {{"relax.force_pure", true}}, At(2, 5));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:2:5: function 'main' sets relax.force_pure but is not pure"));
  // A function bound to no name (here, illegally, a call argument) is named as anonymous.
  Var a = V("a", F32({4})), y = V("y", F32({4})), r = V("r", F32({4}));
  Function inner =
      Func({a}, Seq({}, a), nullptr, false, {{"relax.force_pure", int64_t{1}}}, At(4, 20));
  Expr call = CallWith(GetOp("relax.test_opaque_op"), {inner}, F32({4}), {}, {}, At(4, 13));
  EXPECT_THAT(Check(Main(Func({y}, Seq({Block({Bind(r, call)})}, r)))),
              ElementsAre("hand.py:4:20: a call argument must be a leaf expression or a tuple, not "
                          "a function",
                          "hand.py:4:20: an anonymous function sets relax.force_pure but is not "
                          "pure"));
}

// ---- 9. Struct info present, return info describes the body, integer shapes ----

TEST(WellFormedTest, MissingStructInfo) {
  Var x = V("x", nullptr, At(2, 14));
  Var y = V("y", F32({4}));
  Expr untyped = CallWith(GetOp("relax.add"), {y, y}, nullptr, {}, {}, At(3, 13));
  Var r = V("r", F32({4}));
  Function f = Func({x}, Seq({}, x, At(2, 30)), ObjectSInfo());
  Function g = Func({y}, Seq({Block({Bind(r, untyped)})}, r));
  Function h = Func({V("z", F32({4}))}, Seq({}, Str("s")), nullptr, true, {}, At(9, 5));
  h = ir::Make<FunctionNode>(h->params(), h->body(), nullptr, true, AttrMap{}, At(9, 5));
  EXPECT_THAT(Check(Module({{"f", f}, {"g", g}, {"h", h}})),
              ElementsAre("hand.py:2:14: variable 'x' has no struct info",
                          "hand.py:2:30: expression {0 bindings; return x} has no struct info",
                          "hand.py:3:13: expression R.add(y, y) has no struct info",
                          "hand.py:9:5: function 'h' has no return struct info"));
}

TEST(WellFormedTest, ReturnStructInfoMustNotContradictTheBody) {
  Var x = V("x", F32({4}));
  Function f = Func({x}, Seq({}, x), F32({8}), true, {}, At(2, 5));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:2:5: the return struct info R.Tensor((8,), dtype=\"float32\") "
                          "of function 'main' contradicts its body's R.Tensor((4,), "
                          "dtype=\"float32\")"));
  // TVM accepts return annotations it cannot refute: symbolic dims, or a less precise body.
  TirVar n = MakeTirVar("n");
  Var y = V("y", F32(std::vector<PrimExpr>{IntImm(1), MakeBinary(BinaryOp::kAdd, n, IntImm(2))}));
  Var s = V("s", ir::Make<ShapeSInfoNode>(std::vector<PrimExpr>{n}));
  Function g = Func({s, y}, Seq({}, y), F32({1, 6}));
  Var o = V("o", ObjectSInfo());
  Function h = Func({o}, Seq({}, o), TupleSInfo({F32({2})}));
  EXPECT_THAT(Check(Module({{"g", g}, {"h", h}})), IsEmpty());
}

TEST(WellFormedTest, ShapeValuesMustBeIntegers) {
  Var x = V("x", F32({4}));
  Expr shape = ir::Make<ShapeExprNode>(std::vector<PrimExpr>{FloatImm(1.5)}, At(3, 13));
  Var s = V("s", shape->struct_info());
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(s, shape)})}, s)))),
              ElementsAre("hand.py:3:13: shape values must be integers, but T.float32(1.5) is "
                          "float32"));
}

// ---- All violations are collected ----

TEST(WellFormedTest, CollectsEveryViolationInWalkOrder) {
  Var x = V("x", F32({4})), z = V("z", F32({4}));
  Var lv = DV("lv", F32({4}), At(3, 9)), p = V("p", VoidSInfo());
  Function f =
      Func({x}, Seq({Block({Bind(lv, Add(x, z, At(3, 14))), Bind(p, Print(x, At(4, 13)))})}, x),
           nullptr, true, {}, At(2, 5));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:14: variable 'z' is not defined",
                          "hand.py:3:9: dataflow variable 'lv' is defined outside a dataflow "
                          "block",
                          "hand.py:4:13: pure function 'main' contains an impure call to R.print "
                          "[note hand.py:2:5: function 'main' is declared pure here]"));
}

}  // namespace
}  // namespace pipesplit::analysis
