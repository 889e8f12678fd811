// Well-formedness on hand-built IR, invariants 1-6 of src/analysis/well_formed.cc (scopes, single
// definition, dataflow vars, symbolic vars, global vars, normal form): one test or more per
// diagnostic, each asserting the exact message and location (synthetic spans of "hand.py"), plus
// the well-formed cases each rule must accept. Invariants 7-9: well_formed_types_test.cc.
#include "pipesplit/analysis/well_formed.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/analysis/well_formed_test_util.h"
#include "tests/ir/tir_test_util.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT
using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---- Accepted modules ----

TEST(WellFormedTest, AcceptsATypicalModule) {
  // main(x: (n, 4), y: (n, 4)): dataflow add chain, match_cast, if/else, call_tir, a local
  // recursive function, and a pure call of an impure-free helper.
  IRModule mod;
  TirVar k = MakeTirVar("k");  // the kernel's own shape var
  auto prim = Kernel("kernel", {Buf("A", {k, IntImm(4)}), Buf("B", {k, IntImm(4)})},
                     ir::Make<EvaluateNode>(IntImm(0, DataType::Int(32))));
  GlobalVar kernel = GV("kernel", prim);
  mod.Add(kernel, prim);

  TirVar n = MakeTirVar("n");
  StructInfo t = F32(std::vector<PrimExpr>{n, IntImm(4)});
  Var x = V("x", t), y = V("y", t);
  Expr add = Add(x, y);
  Var lv = DV("lv", add->struct_info());
  Expr tir = CallOp("relax.call_tir", {kernel, Tuple({lv})}, {}, {t});
  Var lv1 = DV("lv1", tir->struct_info());
  Var gv = V("gv", tir->struct_info());
  TirVar m = MakeTirVar("m");
  StructInfo cast_t = F32(std::vector<PrimExpr>{m, IntImm(4)});
  Var c = V("c", cast_t);
  Var cond = V("cond", ir::Make<PrimSInfoNode>(DataType::Bool()));
  Var t1 = V("t1", cast_t), t2 = V("t2", cast_t);
  Expr branch_t = Seq({Block({Bind(t1, c)})}, t1);
  Expr branch_f = Seq({Block({Bind(t2, c)})}, t2);
  auto if_node = ir::Make<IfNode>(cond, branch_t, branch_f, cast_t);
  Var r = V("r", cast_t);
  Var out = V("out", ObjectSInfo());
  Function main = Func({x, y, cond},
                       Seq({Dataflow({Bind(lv, add), Bind(lv1, tir), Bind(gv, lv1)}),
                            Block({MatchCastTo(c, gv, cast_t), Bind(r, if_node)})},
                           r),
                       ObjectSInfo(), true, {{"global_symbol", "main"}});
  mod.Add(GV("main", main), main);
  EXPECT_THAT(Check(mod), IsEmpty());
  EXPECT_NO_THROW(VerifyWellFormed(mod));
  (void)out;
}

TEST(WellFormedTest, AcceptsALocalRecursiveFunction) {
  StructInfo t = F32({4});
  Var f = V("f", Callable({t}, t));
  Var a = V("a", t);
  Var r = V("r", t);
  Function inner = Func({a}, Seq({Block({Bind(r, CallWith(f, {a}, t))})}, r));
  Var x = V("x", t);
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(f, inner)})}, x)))), IsEmpty());
}

// ---- 1. Vars are defined before use and in scope ----

TEST(WellFormedTest, UndefinedVar) {
  Var x = V("x", F32({4})), z = V("z", F32({4}));
  Var lv = V("lv", F32({4}));
  Function f = Func({x}, Seq({Block({Bind(lv, Add(x, z, At(3, 14)), At(3, 9))})}, lv));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:3:14: variable 'z' is not defined"));
  EXPECT_THROW(VerifyWellFormed(Main(f)), DiagnosticError);
}

TEST(WellFormedTest, UseBeforeDefinition) {
  Var x = V("x", F32({4}));
  Var a = V("a", F32({4}), At(3, 9)), b = V("b", F32({4}), At(4, 9));
  Function f = Func({x}, Seq({Block({Bind(a, Add(x, b, At(3, 13))), Bind(b, Add(x, x))})}, a));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:3:13: variable 'b' is used before its "
                                          "definition [note hand.py:4:9: 'b' is defined here]"));
}

TEST(WellFormedTest, BranchVarsDoNotLeak) {
  StructInfo t = F32({4});
  Var x = V("x", t), cond = V("cond", ir::Make<PrimSInfoNode>(DataType::Bool()));
  Var inner = V("inner", t, At(4, 13));
  Var t2 = V("t2", t);
  auto if_node = ir::Make<IfNode>(cond, Seq({Block({Bind(inner, x)})}, inner),
                                  Seq({Block({Bind(t2, x)})}, t2), t);
  Var r = V("r", t), s = V("s", t);
  Function f =
      Func({x, cond}, Seq({Block({Bind(r, if_node), Bind(s, Add(inner, x, At(7, 13)))})}, s));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:7:13: variable 'inner' is used outside the scope that defines "
                          "it [note hand.py:4:13: 'inner' is defined here]"));
}

TEST(WellFormedTest, NestedFunctionVarsDoNotLeak) {
  StructInfo t = F32({4});
  Var a = V("a", t, At(3, 15));
  Function inner = Func({a}, Seq({}, a));
  Var g = V("g", inner->struct_info()), x = V("x", t), r = V("r", t);
  Function f = Func({x}, Seq({Block({Bind(g, inner), Bind(r, Add(a, x, At(5, 13)))})}, r));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:5:13: variable 'a' is used outside the scope that defines it "
                          "[note hand.py:3:15: 'a' is defined here]"));
}

// ---- 2. Vars are defined once ----

TEST(WellFormedTest, VarBoundTwice) {
  Var x = V("x", F32({4})), lv = V("lv", F32({4}), At(3, 9));
  Function f = Func({x}, Seq({Block({Bind(lv, Add(x, x)), Bind(lv, Add(x, x), At(4, 9))})}, lv));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:3:9: variable 'lv' is defined more than once "
                                          "[note hand.py:3:9: first definition of 'lv']"));
}

TEST(WellFormedTest, ParamSharedByTwoFunctions) {
  Var x = V("x", F32({4}), At(2, 14));
  IRModule mod = Module({{"f", Func({x}, Seq({}, x))}, {"g", Func({x}, Seq({}, x))}});
  EXPECT_THAT(Check(mod), ElementsAre("hand.py:2:14: variable 'x' is defined more than once "
                                      "[note hand.py:2:14: first definition of 'x']"));
}

// ---- 3. Dataflow vars ----

TEST(WellFormedTest, DataflowVarDefinedOutsideDataflowBlock) {
  Var x = V("x", F32({4})), lv = DV("lv", F32({4}), At(3, 9));
  Function f = Func({x}, Seq({Block({Bind(lv, Add(x, x))})}, x));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:9: dataflow variable 'lv' is defined outside a dataflow "
                          "block"));
}

TEST(WellFormedTest, DataflowVarReturnedAfterItsBlock) {
  Var x = V("x", F32({4})), lv = DV("lv", F32({4}), At(4, 13));
  Function f = Func({x}, Seq({Dataflow({Bind(lv, Add(x, x))})}, lv, At(6, 9)));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:6:9: dataflow variable 'lv' is used outside the dataflow block "
                          "that defines it [note hand.py:4:13: 'lv' is defined here]"));
}

TEST(WellFormedTest, DataflowVarUsedInALaterBlock) {
  Var x = V("x", F32({4})), lv = DV("lv", F32({4}), At(4, 13)), lv2 = DV("lv2", F32({4}));
  Var gv = V("gv", F32({4}));
  Function f = Func({x}, Seq({Dataflow({Bind(lv, Add(x, x))}),
                              Dataflow({Bind(lv2, Add(lv, x, At(7, 19))), Bind(gv, lv2)})},
                             gv));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:7:19: dataflow variable 'lv' is used outside the dataflow "
                          "block that defines it [note hand.py:4:13: 'lv' is defined here]"));
}

TEST(WellFormedTest, DataflowVarUsedInANestedFunction) {
  StructInfo t = F32({4});
  Var x = V("x", t), lv = DV("lv", t, At(4, 13)), a = V("a", t), r = V("r", t);
  Function inner = Func({a}, Seq({Block({Bind(r, Add(a, lv, At(6, 21)))})}, r));
  Var g = DV("g", inner->struct_info());
  Var gv = V("gv", t);
  Function f = Func({x}, Seq({Dataflow({Bind(lv, Add(x, x)), Bind(g, inner), Bind(gv, x)})}, gv));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:6:21: dataflow variable 'lv' is used outside a dataflow block "
                          "[note hand.py:4:13: 'lv' is defined here]"));
}

TEST(WellFormedTest, DataflowOutputsStayVisible) {
  Var x = V("x", F32({4})), lv = DV("lv", F32({4})), gv = V("gv", F32({4}));
  Var after = V("after", F32({4}));
  Function f = Func(
      {x}, Seq({Dataflow({Bind(lv, Add(x, x)), Bind(gv, lv)}), Block({Bind(after, Add(gv, x))})},
               after));
  EXPECT_THAT(Check(Main(f)), IsEmpty());
}

// ---- 4. Symbolic vars ----

TEST(WellFormedTest, SymbolicVarOnlyInACompositeExpressionIsUndefined) {
  TirVar n = MakeTirVar("n");
  Var x = V("x", F32(std::vector<PrimExpr>{MakeBinary(BinaryOp::kMul, n, IntImm(2))}), At(2, 14));
  EXPECT_THAT(Check(Main(Func({x}, Seq({}, x)))),
              ElementsAre("hand.py:2:14: symbolic variable 'n' is not defined"));
}

TEST(WellFormedTest, SymbolicVarUsedInBodyWithoutDefinition) {
  TirVar n = MakeTirVar("n");
  Var x = V("x", F32({4}));
  Expr shape = ir::Make<ShapeExprNode>(std::vector<PrimExpr>{n}, At(3, 20));
  Var s = V("s", shape->struct_info(), At(3, 9));
  // Reported once per function, at its first use.
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(s, shape)})}, s), ObjectSInfo()))),
              ElementsAre("hand.py:3:20: symbolic variable 'n' is not defined"));
}

TEST(WellFormedTest, MatchCastDefinesSymbolicVarsInItsScopeOnly) {
  StructInfo any = ir::Make<TensorSInfoNode>(DataType::Float(32), 1);
  TirVar m = MakeTirVar("m");
  StructInfo target = F32(std::vector<PrimExpr>{m});
  Var x = V("x", any), cond = V("c", ir::Make<PrimSInfoNode>(DataType::Bool()));
  Var y = V("y", target);
  // In the true branch m is defined by a match_cast; after the if it is not.
  Var t1 = V("t1", any), t2 = V("t2", any);
  auto if_node = ir::Make<IfNode>(cond, Seq({Block({MatchCastTo(y, x, target), Bind(t1, x)})}, t1),
                                  Seq({Block({Bind(t2, x)})}, t2), any);
  Var r = V("r", any);
  Expr shape = ir::Make<ShapeExprNode>(std::vector<PrimExpr>{m}, At(8, 20));
  Var s = V("s", ObjectSInfo());
  Function f = Func({x, cond}, Seq({Block({Bind(r, if_node), Bind(s, shape)})}, s));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:8:20: symbolic variable 'm' is not defined"));
}

TEST(WellFormedTest, NestedFunctionsDoNotCaptureSymbolicVars) {
  TirVar n = MakeTirVar("n");
  StructInfo tn = F32(std::vector<PrimExpr>{n});
  Var x = V("x", tn);
  Var a = V("a", F32({4}));
  Expr shape = ir::Make<ShapeExprNode>(std::vector<PrimExpr>{n}, At(5, 24));
  Var s = V("s", ObjectSInfo());
  Function inner = Func({a}, Seq({Block({Bind(s, shape)})}, s));
  Var g = V("g", inner->struct_info());
  EXPECT_THAT(Check(Main(Func({x}, Seq({Block({Bind(g, inner)})}, x)))),
              ElementsAre("hand.py:5:24: symbolic variable 'n' is not defined"));
}

TEST(WellFormedTest, SymbolicVarSharedByTwoFunctions) {
  TirVar n = MakeTirVar("n");
  Var x = V("x", F32(std::vector<PrimExpr>{n}), At(2, 14));
  Var y = V("y", F32(std::vector<PrimExpr>{n}), At(6, 14));
  IRModule mod = Module({{"f", Func({x}, Seq({}, x))}, {"g", Func({y}, Seq({}, y))}});
  EXPECT_THAT(Check(mod), ElementsAre("hand.py:6:14: symbolic variable 'n' is used by both "
                                      "function 'f' and function 'g' [note hand.py:2:14: 'n' "
                                      "first appears here]"));
}

// ---- 5. Global vars ----

TEST(WellFormedTest, GlobalVarsMustBeMembers) {
  StructInfo t = F32({4});
  auto missing = ir::Make<GlobalVarNode>("nowhere", Callable({t}, t));
  Var x = V("x", t), r = V("r", t);
  Function f = Func({x}, Seq({Block({Bind(r, CallWith(missing, {x}, t, {}, {}, At(3, 13)))})}, r));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:13: cls.nowhere is not a function of this module"));
}

TEST(WellFormedTest, GlobalVarsMustBeTheMembersOwnNode) {
  StructInfo t = F32({4});
  Var a = V("a", t);
  Function helper = Func({a}, Seq({}, a));
  auto stale = ir::Make<GlobalVarNode>("helper", helper->struct_info());
  Var x = V("x", t), r = V("r", t);
  Function f = Func({x}, Seq({Block({Bind(r, CallWith(stale, {x}, t, {}, {}, At(3, 13)))})}, r));
  IRModule mod = Module({{"helper", helper}, {"main", f}});
  EXPECT_THAT(Check(mod), ElementsAre("hand.py:3:13: cls.helper is a different GlobalVar than the "
                                      "module's member 'helper'"));
}

TEST(WellFormedTest, GlobalSymbolMustMatchTheName) {
  Var x = V("x", F32({4}));
  Function f = Func({x}, Seq({}, x), nullptr, true, {{"global_symbol", "other"}}, At(2, 5));
  EXPECT_THAT(Check(Main(f)), ElementsAre("hand.py:2:5: the global_symbol \"other\" of function "
                                          "'main' does not match its name"));
}

TEST(WellFormedTest, CallTirNeedsAPrimFunction) {
  StructInfo t = F32({4});
  Var a = V("a", t);
  Function helper = Func({a}, Seq({}, a));
  GlobalVar helper_gv = GV("helper", helper);
  Var x = V("x", t), r = V("r", t), r2 = V("r2", t);
  Expr bad = CallWith(GetOp("relax.call_tir"), {helper_gv, Tuple({x})}, t, {}, {t}, At(3, 13));
  Expr worse = CallWith(GetOp("relax.call_tir"), {x, Tuple({x})}, t, {}, {t}, At(4, 14));
  auto ext = ir::Make<ExternFuncNode>("sym");
  GlobalVar ext_gv = GV("ext", ext);
  Var r3 = V("r3", t);
  Expr extern_callee =
      CallWith(GetOp("relax.call_tir"), {ext_gv, Tuple({x})}, t, {}, {t}, At(5, 14));
  Function f = Func({x}, Seq({Block({Bind(r, bad), Bind(r2, worse), Bind(r3, extern_callee)})}, r));
  IRModule mod;
  mod.Add(ext_gv, ext);
  mod.Add(helper_gv, helper);
  mod.Add(GV("main", f), f);
  std::vector<std::string> got = Check(mod);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2],
            "hand.py:5:14: R.call_tir expects a prim function, but cls.ext is an extern function");
  EXPECT_EQ(got[0],
            "hand.py:3:13: R.call_tir expects a prim function, but cls.helper is a Relax function");
  // A callee that is no GlobalVar at all is rejected by R.call_tir's inference rule.
  EXPECT_THAT(got[1], ::testing::StartsWith("hand.py:4:14: R.call_tir"));
}

// ---- 6. Normal form ----

TEST(WellFormedTest, FunctionBodyAndBranchesMustBeSeqExprs) {
  StructInfo t = F32({4});
  Var x = V("x", t);
  Function f = Func({x}, Add(x, x, At(2, 12)));
  Var y = V("y", t), c = V("c", ir::Make<PrimSInfoNode>(DataType::Bool()));
  auto if_node = ir::Make<IfNode>(c, y, Seq({}, y), t, At(6, 9));
  Var r = V("r", t);
  Function g = Func({y, c}, Seq({Block({Bind(r, if_node)})}, r));
  Var z = V("z", t);
  Function h = Func({z}, Tuple({z}, At(8, 12)));
  EXPECT_THAT(Check(Module({{"f", f}, {"g", g}, {"h", h}})),
              ElementsAre("hand.py:2:12: a function body must be a SeqExpr, not a call",
                          "hand.py:6:9: an if branch must be a SeqExpr, not a leaf expression",
                          "hand.py:8:12: a function body must be a SeqExpr, not a tuple"));
}

TEST(WellFormedTest, SeqExprsOnlyAsBodies) {
  Var x = V("x", F32({4})), r = V("r", F32({4}));
  Function f = Func({x}, Seq({Block({Bind(r, Seq({}, x, At(3, 13)))})}, r));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:13: a SeqExpr is only allowed as a function body or an if "
                          "branch"));
}

TEST(WellFormedTest, NestedNonLeafExpressionsAreRejected) {
  StructInfo t = F32({4});
  Var x = V("x", t);
  Var tup = V("tup", TupleSInfo({t}));
  Expr inner = Add(x, x, At(3, 20));
  Var a = V("a", t), b = V("b", t), c = V("c", t), d = V("d", t), e = V("e", t);
  auto item = ir::Make<TupleGetItemNode>(CallWith(x, {}, TupleSInfo({t}), {}, {}, At(6, 13)), 0, t);
  auto tuple_of_call =
      ir::Make<TupleNode>(std::vector<Expr>{Add(x, x, At(5, 14))}, TupleSInfo({t}));
  Var cond_v = V("cv", t);
  auto if_node = ir::Make<IfNode>(Add(x, x, At(7, 12)), Seq({}, x), Seq({}, x), t);
  Expr callee_call = CallWith(CallWith(x, {}, Callable({}, t), {}, {}, At(4, 13)), {}, t);
  Function f =
      Func({x, tup}, Seq({Block({Bind(a, CallOp("relax.add", {inner, x})), Bind(b, callee_call),
                                 Bind(c, tuple_of_call), Bind(d, item), Bind(e, if_node)})},
                         Add(x, x, At(9, 16))));
  std::vector<std::string> got = Check(Main(f));
  EXPECT_THAT(got, ::testing::IsSupersetOf(
                       {"hand.py:3:20: a call argument must be a leaf expression or a tuple, not "
                        "a call",
                        "hand.py:4:13: the callee must be a leaf expression or a tuple, not a call",
                        "hand.py:5:14: a tuple field must be a leaf expression or a tuple, not a "
                        "call",
                        "hand.py:6:13: the tuple of an item access must be a leaf expression or a "
                        "tuple, not a call",
                        "hand.py:7:12: an if condition must be a leaf expression or a tuple, not "
                        "a call",
                        "hand.py:9:16: the result of a SeqExpr must be a leaf expression or a "
                        "tuple, not a call"}));
  (void)cond_v;
}

TEST(WellFormedTest, NamesWhatKindOfNodeIsOutOfPlace) {
  StructInfo t = F32({4});
  Var x = V("x", t), tup = V("tup", TupleSInfo({t}));
  auto item = ir::Make<TupleGetItemNode>(tup, 0, t, At(3, 20));
  Var a = V("a", t);
  Function lambda = Func({a}, Seq({}, a), nullptr, true, {}, At(4, 20));
  Var b = V("b", t), c = V("c", t);
  Op opaque = GetOp("relax.test_opaque_op");  // not in the table: neither inferred nor impure
  Function f = Func(
      {x, tup},
      Seq({Block({Bind(b, CallWith(opaque, {item}, t)), Bind(c, CallWith(opaque, {lambda}, t))})},
          x));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:20: a call argument must be a leaf expression or a tuple, not "
                          "a tuple item access",
                          "hand.py:4:20: a call argument must be a leaf expression or a tuple, not "
                          "a function"));
}

TEST(WellFormedTest, NoIfInsideDataflowBlocks) {
  StructInfo t = F32({4});
  Var x = V("x", t), c = V("c", ir::Make<PrimSInfoNode>(DataType::Bool()));
  auto if_node = ir::Make<IfNode>(c, Seq({}, x), Seq({}, x), t, At(4, 18));
  Var gv = V("gv", t);
  Function f = Func({x, c}, Seq({Dataflow({Bind(gv, if_node)})}, gv));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:4:18: an if expression is not allowed inside a dataflow block"));
}

TEST(WellFormedTest, NoPrimFunctionsInsideRelaxFunctions) {
  Var x = V("x", F32({4}));
  auto prim = pipesplit::testing::EvaluatePrimFunc("k", false, 0, At(3, 13));
  Var k = V("k", prim->struct_info());
  Function f = Func({x}, Seq({Block({Bind(k, prim)})}, x));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:3:13: a prim function cannot appear inside a Relax function"));
}

TEST(WellFormedTest, MissingPiecesAreReportedNotCrashes) {
  StructInfo t = F32({4});
  Var x = V("x", t), r = V("r", t), m = V("m", t);
  auto no_body = Func({x}, nullptr, t, true, {}, At(1, 1));
  auto null_block =
      Func({x}, ir::Make<SeqExprNode>(std::vector<BindingBlock>{nullptr}, x, t, At(2, 1)));
  auto null_binding = Func({x}, Seq({Block({nullptr}, At(3, 1))}, x));
  auto no_value = Func({x}, Seq({Block({Bind(r, nullptr, At(4, 1))})}, x));
  auto no_var = Func({x}, Seq({Block({Bind(nullptr, x, At(5, 1))})}, x));
  auto no_target = Func({x}, Seq({Block({MatchCastTo(m, x, nullptr, At(6, 1))})}, x));
  auto null_field =
      Func({x}, Seq({}, ir::Make<TupleNode>(std::vector<Expr>{nullptr}, t, At(7, 1))));
  auto null_sinfo_arg =
      Func({x}, Seq({Block({Bind(V("p", t), CallWith(GetOp("relax.call_pure_packed"),
                                                     {ir::Make<ExternFuncNode>("f")}, t, {},
                                                     {nullptr}, At(8, 1)))})},
                    x));
  auto null_arg =
      Func({x}, Seq({Block({Bind(V("q", t), CallWith(x, {nullptr}, t, {}, {}, At(9, 1)))})}, x));
  IRModule mod = Module({{"a", no_body},
                         {"b", null_block},
                         {"c", null_binding},
                         {"d", no_value},
                         {"e", no_var},
                         {"f", no_target},
                         {"g", null_field},
                         {"h", null_sinfo_arg},
                         {"i", null_arg}});
  EXPECT_THAT(Check(mod), ::testing::IsSupersetOf({
                              "hand.py:1:1: a function body is missing",
                              "hand.py:2:1: a binding block is missing",
                              "hand.py:3:1: a binding is missing",
                              "hand.py:4:1: a binding has no value",
                              "hand.py:5:1: a definition has no variable",
                              "hand.py:6:1: R.match_cast has no target struct info",
                              "hand.py:7:1: a tuple field is missing",
                              "hand.py:8:1: a call has a missing sinfo_args entry",
                              "hand.py:9:1: a call argument is missing",
                          }));
}

TEST(WellFormedTest, DeepNestingIsReportedNotACrash) {
  StructInfo t = F32({4});
  Expr e = Str("leaf");
  for (int i = 0; i < 3000; ++i) e = Tuple({e});
  Var x = V("x", t), r = V("r", e->struct_info());
  Function f = Func({x}, Seq({Block({Bind(r, e, At(2, 1))})}, x), nullptr, true, {}, At(1, 1));
  EXPECT_THAT(Check(Main(f)),
              ElementsAre("hand.py:2:1: expressions are nested too deeply to check"));

  Expr body = Seq({}, Str("s"));
  Function inner;
  for (int i = 0; i < 600; ++i) {
    Var v = V("f", ObjectSInfo());
    inner = Func({}, body, ObjectSInfo(), true, {}, At(5, 1));
    body = Seq({Block({Bind(v, inner)})}, Str("s"));
  }
  EXPECT_THAT(Check(Main(Func({}, body, ObjectSInfo()))),
              ElementsAre("hand.py:5:1: functions are nested too deeply to check"));
}

}  // namespace
}  // namespace pipesplit::analysis
