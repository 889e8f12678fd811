// Structural equality and hashing on hand-built IR: renaming invariance, each kind of difference
// with its exact path and renderings, attribute defaults, and hash consistency.
#include "pipesplit/analysis/structural_equal.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/analysis/test_ir.h"
#include "tests/ir/tir_test_util.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT

// main(x: R.Tensor((n, 4)), y: R.Tensor((n, 4))) with a dataflow block
//   lv = R.add(x, y); gv = R.add(lv, x); return gv
// built from fresh vars each time, named with `prefix` (renaming must be invisible).
struct Example {
  Var x, y, lv, gv;
  TirVar n;
  Function func;
};

Example MakeExample(const std::string& prefix, DataType dtype = DataType::Float(32)) {
  Example e;
  e.n = MakeTirVar(prefix + "n");
  StructInfo t = TensorSInfo({e.n, IntImm(4)}, dtype);
  e.x = V(prefix + "x", t);
  e.y = V(prefix + "y", t);
  Expr add1 = Add(e.x, e.y);
  e.lv = DV(prefix + "lv", add1->struct_info());
  Expr add2 = Add(e.lv, e.x);
  e.gv = V(prefix + "gv", add2->struct_info());
  e.func = Func({e.x, e.y}, Seq({Dataflow({Bind(e.lv, add1), Bind(e.gv, add2)})}, e.gv));
  return e;
}

IRModule OneFunction(const Expr& func) { return Module({{"main", func}}); }

// Asserts the modules differ at `path` with the given renderings, and that equality is
// symmetric about it.
void ExpectDiff(const IRModule& a, const IRModule& b, const std::string& path,
                const std::string& lhs, const std::string& rhs) {
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(a, b, &diff));
  EXPECT_EQ(diff.path, path);
  EXPECT_EQ(diff.lhs, lhs);
  EXPECT_EQ(diff.rhs, rhs);
  StructuralDifference back;
  EXPECT_FALSE(StructuralEqual(b, a, &back));
  EXPECT_EQ(back.path, path);
  EXPECT_EQ(back.lhs, rhs);
  EXPECT_EQ(back.rhs, lhs);
}

TEST(StructuralEqualTest, RenamingIsInvisible) {
  Example a = MakeExample("a_");
  Example b = MakeExample("b_");
  StructuralDifference diff;
  EXPECT_TRUE(StructuralEqual(OneFunction(a.func), OneFunction(b.func), &diff)) << diff.ToString();
  EXPECT_TRUE(StructuralEqual(Expr(a.func), Expr(b.func)));
  EXPECT_EQ(StructuralHash(OneFunction(a.func)), StructuralHash(OneFunction(b.func)));
  EXPECT_EQ(StructuralHash(Expr(a.func)), StructuralHash(Expr(b.func)));
}

TEST(StructuralEqualTest, SpansDoNotCount) {
  TirVar n = MakeTirVar("n");
  Var x1 = V("x", F32({n}), At(1, 1));
  Var x2 = V("x", F32({n}), At(5, 7));
  Function f1 = Func({x1}, Seq({}, x1, At(2, 1)), nullptr, true, {}, At(1, 1));
  Function f2 = Func({x2}, Seq({}, x2, At(9, 3)), nullptr, true, {}, At(4, 4));
  EXPECT_TRUE(StructuralEqual(Expr(f1), Expr(f2)));
  EXPECT_EQ(StructuralHash(Expr(f1)), StructuralHash(Expr(f2)));
}

TEST(StructuralEqualTest, ReportsADifferentOp) {
  Example a = MakeExample("");
  Var x = V("x", a.x->struct_info()), y = V("y", a.x->struct_info());
  Expr mul = CallOp("relax.multiply", {x, y});
  Var lv = DV("lv", mul->struct_info());
  Expr add2 = Add(lv, x);
  Var gv = V("gv", add2->struct_info());
  Function f = Func({x, y}, Seq({Dataflow({Bind(lv, mul), Bind(gv, add2)})}, gv));
  ExpectDiff(OneFunction(a.func), OneFunction(f), "main.body.blocks[0].bindings[0].value.op",
             "R.add", "R.multiply");
}

TEST(StructuralEqualTest, ReportsASwappedArgument) {
  Example a = MakeExample("");
  StructInfo t = a.x->struct_info();
  Var x = V("x", t), y = V("y", t);
  Expr add1 = Add(x, y);
  Var lv = DV("lv", add1->struct_info());
  Expr add2 = Add(lv, y);  // y where the original uses x
  Var gv = V("gv", add2->struct_info());
  Function f = Func({x, y}, Seq({Dataflow({Bind(lv, add1), Bind(gv, add2)})}, gv));
  ExpectDiff(OneFunction(a.func), OneFunction(f), "main.body.blocks[0].bindings[1].value.args[1]",
             "x", "y");
}

TEST(StructuralEqualTest, SameNameDifferentVariableIsReported) {
  StructInfo t = F32({4});
  Var x1 = V("x", t), x2 = V("x", t);
  Var y1 = V("x", t), y2 = V("x", t);
  // f(x, x') returns its first param; g(x, x') returns its second.
  Function f = Func({x1, x2}, Seq({}, x1));
  Function g = Func({y1, y2}, Seq({}, y2));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(OneFunction(f), OneFunction(g), &diff));
  EXPECT_EQ(diff.ToString(), "main.body.body: x vs x (a different variable)");
}

TEST(StructuralEqualTest, DataflowVarDiffersFromVar) {
  StructInfo t = F32({4});
  Var x1 = V("x", t), x2 = V("x", t);
  Expr a1 = Add(x1, x1), a2 = Add(x2, x2);
  Var lv1 = DV("lv", a1->struct_info());
  Var lv2 = V("lv", a2->struct_info());
  Function f = Func({x1}, Seq({Dataflow({Bind(lv1, a1)})}, x1));
  Function g = Func({x2}, Seq({Dataflow({Bind(lv2, a2)})}, x2));
  ExpectDiff(OneFunction(f), OneFunction(g), "main.body.blocks[0].bindings[0].var", "lv", "lv");
}

TEST(StructuralEqualTest, ReportsStructInfoDims) {
  Function f = Func({V("x", F32({4, 8}))}, Seq({}, V("unused", F32({1}))));
  Var x = V("x", F32({4, 8})), x2 = V("x", F32({4, 16}));
  ExpectDiff(OneFunction(Func({x}, Seq({}, x))), OneFunction(Func({x2}, Seq({}, x2))),
             "main.params[0].struct_info.shape[1]", "8", "16");
  (void)f;
}

TEST(StructuralEqualTest, ReportsDtypeAndRank) {
  Var a = V("x", F32({4}));
  Var b = V("x", TensorSInfo({IntImm(4)}, DataType::Float(16)));
  ExpectDiff(OneFunction(Func({a}, Seq({}, a))), OneFunction(Func({b}, Seq({}, b))),
             "main.params[0].struct_info.dtype", "float32", "float16");
  Var c = V("x", ir::Make<TensorSInfoNode>(DataType::Float(32), 2));
  Var d = V("x", ir::Make<TensorSInfoNode>(DataType::Float(32), 3));
  ExpectDiff(OneFunction(Func({c}, Seq({}, c))), OneFunction(Func({d}, Seq({}, d))),
             "main.params[0].struct_info.ndim", "2", "3");
}

TEST(StructuralEqualTest, SymbolicVarsMapOneToOne) {
  TirVar n1 = MakeTirVar("n"), m1 = MakeTirVar("m");
  TirVar n2 = MakeTirVar("n");
  Var a = V("x", F32(std::vector<PrimExpr>{n1, m1}));
  Var b = V("x", F32(std::vector<PrimExpr>{n2, n2}));
  ExpectDiff(OneFunction(Func({a}, Seq({}, a))), OneFunction(Func({b}, Seq({}, b))),
             "main.params[0].struct_info.shape[1]", "m", "n");
  // Renamed symbolic vars are equal.
  TirVar p = MakeTirVar("p"), q = MakeTirVar("q");
  Var c = V("x", F32(std::vector<PrimExpr>{p, q}));
  EXPECT_TRUE(
      StructuralEqual(OneFunction(Func({a}, Seq({}, a))), OneFunction(Func({c}, Seq({}, c)))));
}

TEST(StructuralEqualTest, SymbolicExpressionsCompareStructurally) {
  TirVar n1 = MakeTirVar("n"), n2 = MakeTirVar("n");
  Var a = V("x", F32(std::vector<PrimExpr>{n1}));
  Var b = V("x", F32(std::vector<PrimExpr>{n2}));
  Expr sa =
      ir::Make<ShapeExprNode>(std::vector<PrimExpr>{MakeBinary(BinaryOp::kMul, n1, IntImm(2))});
  Expr sb =
      ir::Make<ShapeExprNode>(std::vector<PrimExpr>{MakeBinary(BinaryOp::kMul, IntImm(2), n2)});
  ExpectDiff(OneFunction(Func({a}, Seq({}, sa))), OneFunction(Func({b}, Seq({}, sb))),
             "main.ret_struct_info.values[0]", "n * 2", "2 * n");
}

TEST(StructuralEqualTest, FreeSymbolicVarsNeedMapping) {
  TirVar n1 = MakeTirVar("n"), n2 = MakeTirVar("n");
  StructInfo a = F32(std::vector<PrimExpr>{n1}), b = F32(std::vector<PrimExpr>{n2});
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(a, b, false, &diff));
  EXPECT_EQ(diff.ToString(), "shape[0]: n vs n");
  EXPECT_TRUE(StructuralEqual(a, b, true));
  EXPECT_TRUE(StructuralEqual(a, a, false));
}

TEST(StructuralEqualTest, FreeVarsNeedMapping) {
  Var x = V("x", F32({4})), y = V("y", F32({4}));
  Expr ax = Add(x, x), ay = Add(y, y), axy = Add(x, y);
  EXPECT_FALSE(StructuralEqual(ax, ay));
  EXPECT_TRUE(StructuralEqual(ax, ay, true));
  EXPECT_TRUE(StructuralEqual(ax, ax));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(ax, axy, true, &diff));  // x would map to both x and y
  EXPECT_EQ(diff.ToString(), "args[1]: x vs y");
  EXPECT_EQ(StructuralHash(ax), StructuralHash(ay));
  EXPECT_NE(StructuralHash(ax), StructuralHash(axy));
}

TEST(StructuralEqualTest, OpAttrDefaultsAreMaterialized) {
  Var x = V("x", F32({8}));
  Var i = V("i", TensorSInfo({IntImm(2)}, DataType::Int(64)));
  Expr bare = CallOp("relax.take", {x, i});
  Expr full = CallOp("relax.take", {x, i}, {{"axis", AttrValue()}, {"mode", "fast"}});
  Expr reordered = CallOp("relax.take", {x, i}, {{"mode", "fast"}, {"axis", AttrValue()}});
  Expr clip = CallOp("relax.take", {x, i}, {{"mode", "clip"}});
  EXPECT_TRUE(StructuralEqual(bare, full));
  EXPECT_TRUE(StructuralEqual(full, reordered));
  EXPECT_EQ(StructuralHash(bare), StructuralHash(full));
  EXPECT_EQ(StructuralHash(full), StructuralHash(reordered));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(bare, clip, false, &diff));
  EXPECT_EQ(diff.ToString(), "attrs[\"mode\"]: \"fast\" vs \"clip\"");
  EXPECT_NE(StructuralHash(bare), StructuralHash(clip));
}

TEST(StructuralEqualTest, OpAttrNumbersCompareByValue) {
  // TVM stores op attributes in typed fields: `extrapolation_value=0` is 0.0 there.
  Var x = V("x", F32({4}));
  auto call = [&](AttrValue v) {
    return CallWith(GetOp("relax.my_custom_op"), {x}, F32({4}), {{"value", std::move(v)}});
  };
  EXPECT_TRUE(StructuralEqual(call(int64_t{0}), call(0.0)));
  EXPECT_EQ(StructuralHash(call(int64_t{0})), StructuralHash(call(0.0)));
  EXPECT_TRUE(StructuralEqual(call(IntImm(3)), call(3.0)));
  EXPECT_TRUE(StructuralEqual(call(std::nan("")), call(std::nan(""))));
  EXPECT_EQ(StructuralHash(call(std::nan(""))), StructuralHash(call(std::nan(""))));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(call(int64_t{1}), call(1.5), false, &diff));
  EXPECT_EQ(diff.ToString(), "attrs[\"value\"]: 1 vs 1.5");
  EXPECT_FALSE(StructuralEqual(call(true), call(int64_t{1})));
  // Function attributes are untyped: there 0 and 0.0 differ.
  auto func = [](AttrValue v) {
    Var p = V("p", F32({4}));
    return Expr(Func({p}, Seq({}, p), nullptr, true, {{"k", std::move(v)}}));
  };
  EXPECT_FALSE(StructuralEqual(func(int64_t{0}), func(0.0)));
}

TEST(StructuralEqualTest, SymbolicVarsBoundInAttrsAreMapped) {
  // R.layout_transform(x, index_map=T.index_map(lambda i0, i1: (i1, i0))), as the parser stores
  // it: AttrCall{"T.index_map", [AttrCall{"lambda", [[i0, i1], [i1, i0]]}]}.
  auto call = [](const std::string& a, const std::string& b, DataType dtype, bool share) {
    Var x = V("x", F32({4, 4}));
    static PrimExpr shared0 = MakeTirVar("i0"), shared1 = MakeTirVar("i1");
    PrimExpr i0 = share ? shared0 : ir::Make<TirVarNode>(a, dtype);
    PrimExpr i1 = share ? shared1 : ir::Make<TirVarNode>(b, dtype);
    AttrValue lambda = AttrCall{"lambda", {AttrList{i0, i1}, AttrList{i1, i0}}, {}};
    AttrValue index_map = AttrCall{"T.index_map", {lambda}, {}};
    // Two layout transforms: a parser may or may not reuse the param nodes between them.
    Expr first =
        CallWith(GetOp("relax.layout_transform"), {x}, F32({4, 4}), {{"index_map", index_map}});
    Var y = V("y", F32({4, 4}));
    Expr second = CallWith(
        GetOp("relax.layout_transform"), {y}, F32({4, 4}),
        {{"index_map",
          share ? index_map
                : AttrValue(AttrCall{"T.index_map",
                                     {AttrCall{"lambda", {AttrList{i1, i0}, AttrList{i0, i1}}, {}}},
                                     {}})}});
    return Expr(Func({x}, Seq({Block({Bind(y, first)})}, second)));
  };
  DataType i64 = DataType::Int(64);
  EXPECT_TRUE(StructuralEqual(call("i0", "i1", i64, false), call("a", "b", i64, false)));
  EXPECT_EQ(StructuralHash(call("i0", "i1", i64, false)),
            StructuralHash(call("a", "b", i64, false)));
  EXPECT_TRUE(StructuralEqual(call("", "", i64, true), call("a", "b", i64, false)));
  EXPECT_EQ(StructuralHash(call("", "", i64, true)), StructuralHash(call("a", "b", i64, false)));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(call("i0", "i1", DataType::Int(32), false),
                               call("i0", "i1", i64, false), false, &diff));
  EXPECT_EQ(diff.ToString(),
            "body.blocks[0].bindings[0].value.attrs[\"index_map\"].args[0].args[0][0]: i0 (int32) "
            "vs i0 (int64)");
}

TEST(StructuralEqualTest, UnknownOpAttrsHaveNoDefaults) {
  Var x = V("x", F32({4}));
  Expr a = CallWith(GetOp("relax.my_custom_op"), {x}, F32({4}));
  Expr b = CallWith(GetOp("relax.my_custom_op"), {x}, F32({4}), {{"k", int64_t{1}}});
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(a, b, false, &diff));
  EXPECT_EQ(diff.ToString(), "attrs[\"k\"]: <missing> vs 1");
}

TEST(StructuralEqualTest, DictOrderDoesNotMatterButListOrderDoes) {
  Var x = V("x", F32({4}));
  auto with_attrs = [&](AttrMap attrs) {
    Var p = V("x", F32({4}));
    return OneFunction(Func({p}, Seq({}, p), nullptr, true, std::move(attrs)));
  };
  AttrMap ab = {{"a", int64_t{1}}, {"b", AttrMap{{"k", "v"}, {"j", 2}}}};
  AttrMap ba = {{"b", AttrMap{{"j", 2}, {"k", "v"}}}, {"a", int64_t{1}}};
  EXPECT_TRUE(StructuralEqual(with_attrs(ab), with_attrs(ba)));
  EXPECT_EQ(StructuralHash(with_attrs(ab)), StructuralHash(with_attrs(ba)));
  ExpectDiff(with_attrs({{"l", AttrList{1, 2}}}), with_attrs({{"l", AttrList{2, 1}}}),
             "main.attrs[\"l\"][0]", "1", "2");
  ExpectDiff(with_attrs({{"a", 1}}), with_attrs({{"a", 1}, {"num_input", 2}}),
             "main.attrs[\"num_input\"]", "<missing>", "2");
  ExpectDiff(with_attrs({{"d", AttrMap{{"k", "v"}}}}), with_attrs({{"d", AttrMap{{"k", "w"}}}}),
             "main.attrs[\"d\"][\"k\"]", "\"v\"", "\"w\"");
  ExpectDiff(with_attrs({{"c", AttrCall{"I.vdevice", {1}, {{"m", 0}}}}}),
             with_attrs({{"c", AttrCall{"I.vdevice", {1}, {{"m", 1}}}}}),
             "main.attrs[\"c\"].kwargs[\"m\"]", "0", "1");
  ExpectDiff(with_attrs({{"c", AttrCall{"I.vdevice", {1}, {}}}}),
             with_attrs({{"c", AttrCall{"I.other", {1}, {}}}}), "main.attrs[\"c\"].callee",
             "I.vdevice", "I.other");
  (void)x;
}

TEST(StructuralEqualTest, IntAttrEqualsInt64Immediate) {
  auto with_attr = [&](AttrValue v) {
    Var p = V("x", F32({4}));
    return OneFunction(Func({p}, Seq({}, p), nullptr, true, {{"num_input", std::move(v)}}));
  };
  EXPECT_TRUE(StructuralEqual(with_attr(int64_t{2}), with_attr(IntImm(2))));
  EXPECT_EQ(StructuralHash(with_attr(int64_t{2})), StructuralHash(with_attr(IntImm(2))));
  ExpectDiff(with_attr(int64_t{2}), with_attr(IntImm(2, DataType::Int(32))),
             "main.attrs[\"num_input\"]", "2", "T.int32(2)");
}

TEST(StructuralEqualTest, ReportsPurityAndReturnInfo) {
  Var a = V("x", F32({4})), b = V("x", F32({4}));
  ExpectDiff(OneFunction(Func({a}, Seq({}, a), nullptr, true)),
             OneFunction(Func({b}, Seq({}, b), nullptr, false)), "main.is_pure", "True", "False");
  Var c = V("x", F32({4}));
  ExpectDiff(OneFunction(Func({a}, Seq({}, a))), OneFunction(Func({c}, Seq({}, c), ObjectSInfo())),
             "main.ret_struct_info", "R.Tensor((4,), dtype=\"float32\")", "R.Object");
}

TEST(StructuralEqualTest, ReportsMissingAndExtraElements) {
  Var a = V("x", F32({4})), b = V("x", F32({4})), b2 = V("y", F32({4}));
  ExpectDiff(OneFunction(Func({a}, Seq({}, a))), OneFunction(Func({b, b2}, Seq({}, b))),
             "main.params[1]", "<missing>", "y: R.Tensor((4,), dtype=\"float32\")");
  Var x = V("x", F32({4})), y = V("x", F32({4}));
  Expr s1 = Add(x, x), s2 = Add(y, y);
  Var v1 = V("v", s1->struct_info()), v2 = V("v", s2->struct_info());
  ExpectDiff(OneFunction(Func({x}, Seq({Block({})}, x))),
             OneFunction(Func({y}, Seq({Block({Bind(v2, s2)})}, y))),
             "main.body.blocks[0].bindings[0]", "<missing>",
             "v: R.Tensor((4,), dtype=\"float32\") = R.add(x, x)");
  (void)v1;
}

TEST(StructuralEqualTest, ReportsConstantsSinfoArgsAndTupleItems) {
  auto ret = [](Expr body) {
    return OneFunction(Func({}, Seq({}, std::move(body)), ObjectSInfo()));
  };
  auto c = [](ConstantNode::Scalar v, DataType t) { return ir::Make<ConstantNode>(v, t); };
  ExpectDiff(ret(c(1.5, DataType::Float(32))), ret(c(2.5, DataType::Float(32))),
             "main.body.body.value", "R.const(1.5, \"float32\")", "R.const(2.5, \"float32\")");
  ExpectDiff(ret(c(1.5, DataType::Float(32))), ret(c(1.5, DataType::Float(16))),
             "main.body.body.dtype", "float32", "float16");
  auto meta = [](int64_t i) { return ir::Make<ConstantNode>(i, F32({2})); };
  ExpectDiff(ret(meta(0)), ret(meta(3)), "main.body.body.metadata_index", "0", "3");
  EXPECT_TRUE(StructuralEqual(ret(meta(3)), ret(meta(3))));
  EXPECT_TRUE(StructuralEqual(ret(c(std::nan(""), DataType::Float(32))),
                              ret(c(std::nan(""), DataType::Float(32)))));

  auto packed = [](StructInfo s) {
    Var x = V("x", F32({4}));
    Expr call =
        CallWith(GetOp("relax.call_pure_packed"), {ir::Make<ExternFuncNode>("f"), x}, s, {}, {s});
    return OneFunction(Func({x}, Seq({}, call), ObjectSInfo()));
  };
  ExpectDiff(packed(F32({4})), packed(F32({8})), "main.body.body.sinfo_args[0].shape[0]", "4", "8");
  auto item = [](int index) {
    Var t = V("t", TupleSInfo({F32({4}), F32({4})}));
    Expr get = ir::Make<TupleGetItemNode>(t, index, F32({4}));
    return OneFunction(Func({t}, Seq({}, get)));
  };
  ExpectDiff(item(0), item(1), "main.body.body.index", "0", "1");
}

TEST(StructuralEqualTest, ReportsEachKindOfNodeAndStructInfo) {
  auto diff_of = [](const Expr& a, const Expr& b) {
    StructuralDifference diff;
    EXPECT_FALSE(StructuralEqual(a, b, true, &diff));
    EXPECT_NE(StructuralHash(a), StructuralHash(b));
    return diff.ToString();
  };
  auto sdiff = [](const StructInfo& a, const StructInfo& b) {
    StructuralDifference diff;
    EXPECT_FALSE(StructuralEqual(a, b, true, &diff));
    return diff.ToString();
  };
  auto str = [](const std::string& v) { return ir::Make<StringImmNode>(v); };
  auto shape = [](std::vector<PrimExpr> v) { return ir::Make<ShapeExprNode>(std::move(v)); };
  EXPECT_EQ(diff_of(str("a"), str("b")), ": R.str(\"a\") vs R.str(\"b\")");
  EXPECT_EQ(diff_of(ir::Make<DataTypeImmNode>(DataType::Float(32)),
                    ir::Make<DataTypeImmNode>(DataType::Int(8))),
            ": R.dtype(\"float32\") vs R.dtype(\"int8\")");
  EXPECT_EQ(diff_of(shape({IntImm(1), IntImm(2)}), shape({IntImm(1)})),
            "values[1]: 2 vs <missing>");
  EXPECT_EQ(diff_of(ir::Make<PrimValueNode>(IntImm(1)),
                    ir::Make<PrimValueNode>(IntImm(1, DataType::Int(32)))),
            "value: 1 vs T.int32(1)");
  EXPECT_EQ(diff_of(str("a"), shape({})), ": R.str(\"a\") vs R.shape([])");
  Var x = V("x", F32({4}));
  Expr call_a = CallWith(ir::Make<ExternFuncNode>("f"), {x}, ObjectSInfo());
  Expr call_b = CallWith(ir::Make<ExternFuncNode>("g"), {x}, ObjectSInfo());
  EXPECT_EQ(diff_of(call_a, call_b), "op: R.ExternFunc(\"f\") vs R.ExternFunc(\"g\")");
  Expr call_c = CallWith(ir::Make<ExternFuncNode>("f"), {x}, F32({4}));
  EXPECT_EQ(diff_of(call_a, call_c), "struct_info: R.Object vs R.Tensor((4,), dtype=\"float32\")");

  // Control flow and blocks.
  StructInfo t = F32({4});
  auto with_if = [&](bool swap, bool dataflow, bool match_cast) {
    Var p = V("p", t), c = V("c", ir::Make<PrimSInfoNode>(DataType::Bool()));
    Var q = V("q", t), r = V("r", t);
    Binding bq = match_cast ? MatchCastTo(q, p, t) : Bind(q, p);
    BindingBlock block = dataflow ? Dataflow({bq}) : Block({bq});
    Expr then_branch = Seq({block}, q);
    Expr else_branch = Seq({}, p);
    auto node =
        ir::Make<IfNode>(c, swap ? else_branch : then_branch, swap ? then_branch : else_branch, t);
    return Expr(Func({p, c}, Seq({Block({Bind(r, node)})}, r)));
  };
  EXPECT_EQ(diff_of(with_if(false, false, false), with_if(true, false, false)),
            "body.blocks[0].bindings[0].value.true_branch.blocks[0]: 1 binding vs <missing>");
  EXPECT_EQ(diff_of(with_if(false, false, false), with_if(false, true, false)),
            "body.blocks[0].bindings[0].value.true_branch.blocks[0]: 1 binding vs with "
            "R.dataflow(): 1 binding");
  EXPECT_EQ(diff_of(with_if(false, false, false), with_if(false, false, true)),
            "body.blocks[0].bindings[0].value.true_branch.blocks[0].bindings[0]: q: "
            "R.Tensor((4,), dtype=\"float32\") = p vs q: R.Tensor((4,), dtype=\"float32\") = "
            "R.match_cast(p, R.Tensor((4,), dtype=\"float32\"))");

  // Struct info of every kind.
  TirVar n = MakeTirVar("n");
  EXPECT_EQ(sdiff(ir::Make<ShapeSInfoNode>(2), ir::Make<ShapeSInfoNode>(3)), "ndim: 2 vs 3");
  EXPECT_EQ(sdiff(ir::Make<ShapeSInfoNode>(std::vector<PrimExpr>{IntImm(2)}),
                  ir::Make<ShapeSInfoNode>(1)),
            ": R.Shape([2]) vs R.Shape(ndim=1)");
  EXPECT_EQ(
      sdiff(ir::Make<PrimSInfoNode>(DataType::Int(64)), ir::Make<PrimSInfoNode>(DataType::Int(32))),
      "dtype: int64 vs int32");
  EXPECT_EQ(sdiff(ir::Make<PrimSInfoNode>(DataType::Int(64)),
                  ir::Make<PrimSInfoNode>(DataType::Int(64), n)),
            "value: <null> vs n");
  EXPECT_EQ(sdiff(ir::Make<TensorSInfoNode>(DataType::Float(32), 1, "llvm"),
                  ir::Make<TensorSInfoNode>(DataType::Float(32), 1, "cuda")),
            "vdevice: llvm vs cuda");
  EXPECT_EQ(sdiff(TupleSInfo({F32({1})}), TupleSInfo({F32({1}), ObjectSInfo()})),
            "fields[1]: <missing> vs R.Object");
  EXPECT_EQ(sdiff(ObjectSInfo(), TupleSInfo({})), ": R.Object vs R.Tuple");
  auto callable = [&](StructInfo param, StructInfo ret, bool pure) {
    return ir::Make<FuncSInfoNode>(std::vector<StructInfo>{param}, ret, pure);
  };
  EXPECT_EQ(sdiff(callable(F32({1}), F32({1}), true), callable(F32({2}), F32({1}), true)),
            "params[0].shape[0]: 1 vs 2");
  EXPECT_EQ(sdiff(callable(F32({1}), F32({1}), true), callable(F32({1}), F32({3}), true)),
            "ret.shape[0]: 1 vs 3");
  EXPECT_EQ(sdiff(callable(F32({1}), F32({1}), true), callable(F32({1}), F32({1}), false)),
            "purity: True vs False");
}

TEST(StructuralEqualTest, ModulesCompareMembersByName) {
  Example a = MakeExample("");
  Example b = MakeExample("");
  IRModule m1 = Module({{"main", a.func}, {"helper", MakeExample("h").func}});
  IRModule m2 = Module({{"helper", MakeExample("k").func}, {"main", b.func}});
  EXPECT_TRUE(StructuralEqual(m1, m2));
  EXPECT_EQ(StructuralHash(m1), StructuralHash(m2));
  IRModule m3 = Module({{"main", MakeExample("").func}});
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(m1, m3, &diff));
  EXPECT_EQ(diff.path, "helper");
  EXPECT_EQ(diff.rhs, "<missing>");
  EXPECT_FALSE(StructuralEqual(m3, m1, &diff));
  EXPECT_EQ(diff.path, "helper");
  EXPECT_EQ(diff.lhs, "<missing>");
  EXPECT_NE(StructuralHash(m1), StructuralHash(m3));
}

TEST(StructuralEqualTest, PrimFuncsCompareByTextAndExternsBySymbol) {
  auto with = [](Expr member) {
    IRModule mod;
    mod.Add(GV("k", member), member);
    return mod;
  };
  auto prim = [](int value, bool is_private = false) {
    return pipesplit::testing::EvaluatePrimFunc("k", is_private, value);
  };
  EXPECT_TRUE(StructuralEqual(with(prim(0)), with(prim(0))));
  ExpectDiff(with(prim(0)), with(prim(1)), "k.text", "line 3:     T.evaluate(0)",
             "line 3:     T.evaluate(1)");
  ExpectDiff(with(prim(0, false)), with(prim(0, true)), "k.is_private", "False", "True");
  ExpectDiff(with(ir::Make<ExternFuncNode>("a")), with(ir::Make<ExternFuncNode>("b")), "k",
             "R.ExternFunc(\"a\")", "R.ExternFunc(\"b\")");
  ExpectDiff(with(prim(0)), with(ir::Make<ExternFuncNode>("b")), "k", "T.prim_func k",
             "R.ExternFunc(\"b\")");
}

TEST(StructuralEqualTest, ModuleAttrsAndGlobalInfos) {
  IRModule a = OneFunction(MakeExample("").func);
  IRModule b = OneFunction(MakeExample("").func);
  a.set_attrs({{"system_lib_prefix", "x"}});
  b.set_attrs({{"system_lib_prefix", "x"}});
  EXPECT_TRUE(StructuralEqual(a, b));
  b.set_global_infos({{"vdevice", AttrList{AttrCall{"I.vdevice", {"llvm"}, {}}}}});
  ExpectDiff(a, b, "global_infos[\"vdevice\"]", "<missing>", "[I.vdevice(\"llvm\")]");
  b.set_attrs({{"system_lib_prefix", "y"}});
  ExpectDiff(a, b, "attrs[\"system_lib_prefix\"]", "\"x\"", "\"y\"");
}

TEST(StructuralEqualTest, GlobalVarsCompareByName) {
  auto caller = [](const std::string& callee) {
    Var x = V("x", F32({4}));
    auto gv = ir::Make<GlobalVarNode>(callee, nullptr);
    Expr call = CallWith(gv, {x}, F32({4}));
    Var r = V("r", F32({4}));
    return Func({x}, Seq({Block({Bind(r, call)})}, r));
  };
  EXPECT_TRUE(StructuralEqual(Expr(caller("f")), Expr(caller("f"))));
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(Expr(caller("f")), Expr(caller("g")), false, &diff));
  EXPECT_EQ(diff.ToString(), "body.blocks[0].bindings[0].value.op: cls.f vs cls.g");
}

TEST(StructuralEqualTest, RecursiveLocalFunctionsAreMapped) {
  // f = R.function(x) { return f(x) } bound inside main: the body refers to its own binding var.
  auto build = [](const std::string& name) {
    StructInfo t = F32({4});
    Var x = V("x", t);
    StructInfo callable = ir::Make<FuncSInfoNode>(std::vector<StructInfo>{t}, t, true);
    Var f = V(name, callable);
    Expr call = CallWith(f, {x}, t);
    Var r = V("r", t);
    Function inner = Func({x}, Seq({Block({Bind(r, call)})}, r));
    Var y = V("y", t);
    return Func({y}, Seq({Block({Bind(f, inner)})}, y));
  };
  StructuralDifference diff;
  EXPECT_TRUE(StructuralEqual(Expr(build("f")), Expr(build("g")), false, &diff)) << diff.ToString();
  EXPECT_EQ(StructuralHash(Expr(build("f"))), StructuralHash(Expr(build("g"))));
}

TEST(StructuralEqualTest, MatchCastDefinesSymbolicVars) {
  auto build = [](const std::string& prefix) {
    Var x = V("x", ir::Make<TensorSInfoNode>(DataType::Float(32), 1));
    TirVar m = MakeTirVar(prefix + "m");
    StructInfo target = F32(std::vector<PrimExpr>{m});
    Var y = V("y", target);
    Expr shape =
        ir::Make<ShapeExprNode>(std::vector<PrimExpr>{MakeBinary(BinaryOp::kAdd, m, IntImm(1))});
    Var s = V("s", shape->struct_info());
    return Func({x}, Seq({Block({MatchCastTo(y, x, target), Bind(s, shape)})}, s), ObjectSInfo());
  };
  EXPECT_TRUE(StructuralEqual(Expr(build("a")), Expr(build("b"))));
  EXPECT_EQ(StructuralHash(Expr(build("a"))), StructuralHash(Expr(build("b"))));
}

TEST(StructuralEqualTest, LongSymbolicChainsDoNotRecurse) {
  auto chain = [](int64_t last) {
    TirVar n = MakeTirVar("n");
    PrimExpr e = n;
    for (int i = 0; i < 20000; ++i) {
      e = MakeBinary(BinaryOp::kAdd, e, IntImm(i == 19999 ? last : 1));
    }
    Var x = V("x", F32(std::vector<PrimExpr>{n}));
    Expr shape = ir::Make<ShapeExprNode>(std::vector<PrimExpr>{e});
    return Func({x}, Seq({}, shape));
  };
  Function a = chain(1), b = chain(1), c = chain(2);
  EXPECT_TRUE(StructuralEqual(Expr(a), Expr(b)));
  EXPECT_EQ(StructuralHash(Expr(a)), StructuralHash(Expr(b)));
  EXPECT_FALSE(StructuralEqual(Expr(a), Expr(c)));
}

TEST(StructuralEqualTest, DeepNestingIsBoundedNotACrash) {
  auto nest = [](int depth) {
    Expr e = ir::Make<StringImmNode>("leaf");
    for (int i = 0; i < depth; ++i) e = Tuple({e});
    return e;
  };
  Expr a = nest(5000), b = nest(5000);
  StructuralDifference diff;
  EXPECT_FALSE(StructuralEqual(a, b, false, &diff));
  EXPECT_EQ(diff.lhs, "<nesting too deep>");
  (void)StructuralHash(a);
  EXPECT_TRUE(StructuralEqual(nest(100), nest(100)));
}

}  // namespace
}  // namespace pipesplit::analysis
