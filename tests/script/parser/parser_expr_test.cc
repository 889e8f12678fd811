// Parser tests: expressions — literals and string escapes, constants and prim values, struct
// info spellings, Python operator sugar, op calls placed through the op table, packed calls,
// call_tir, T.* intrinsics and index-map lambdas.
#include <gtest/gtest.h>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/prim_text.h"
#include "src/script/relax/parser_lower.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::FindBinding;
using testing::GetFunction;
using testing::OpName;
using testing::Parse;

std::string Render(const ir::StructInfo& s) { return RenderStructInfo(s); }

// A module whose `main(x: R.Tensor((2,), "float32"), y: ...)` has the given body lines.
std::string WithBody(const std::string& body) {
  return "@I.ir_module\nclass Module:\n    @T.prim_func\n    def k(A: T.handle):\n        pass\n\n"
         "    @R.function(pure=False)\n"
         "    def main(x: R.Tensor((2,), \"float32\"), y: R.Tensor((2,), \"float32\"), "
         "s: R.Shape([\"n\"])):\n"
         "        n = T.int64()\n"
         "        cls = Module\n" +
         body;
}

const ir::CallNode& CallOf(const ir::Function& f, std::string_view name) {
  const auto* call = ir::As<ir::CallNode>(FindBinding(f, name)->value());
  EXPECT_NE(call, nullptr) << name;
  return *call;
}

TEST(ParserExpr, StringLiteralsAndEscapes) {
  ir::IRModule mod = Parse(WithBody(R"(        a = R.str("q\"b\\c\n\x41\xff\u00e9\t")
        b = R.str('single \'q\'' "+" r"\d\n")
        c = R.str("""triple
line""")
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  auto str = [&](const char* name) {
    return ir::As<ir::StringImmNode>(FindBinding(main, name)->value())->value();
  };
  EXPECT_EQ(str("a"), std::string("q\"b\\c\nA\xff\xc3\xa9\t"));
  EXPECT_EQ(str("b"), "single 'q'+\\d\\n");
  EXPECT_EQ(str("c"), "triple\nline");
}

TEST(ParserExpr, ConstantsPrimValuesAndImmediates) {
  ir::IRModule mod = Parse(WithBody(R"(        a = R.const(1.5, "float16")
        b = R.const(3)
        c = R.const(True)
        d = R.const(-2, dtype="int8")
        e = R.prim_value(7)
        f = R.prim_value(n + 1)
        g = R.dtype("float32")
        h = R.shape([2, n * 3, T.int64(4)])
        i = 2
        j = R.prim_value(T.float32(0.5))
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  auto constant = [&](const char* name) {
    return ir::As<ir::ConstantNode>(FindBinding(main, name)->value());
  };
  EXPECT_EQ(std::get<double>(constant("a")->scalar()), 1.5);
  EXPECT_EQ(constant("a")->dtype(), DataType::Float(16));
  EXPECT_EQ(std::get<int64_t>(constant("b")->scalar()), 3);
  EXPECT_EQ(constant("b")->dtype(), DataType::Int(32));
  EXPECT_EQ(std::get<bool>(constant("c")->scalar()), true);
  EXPECT_EQ(std::get<int64_t>(constant("d")->scalar()), -2);
  EXPECT_EQ(constant("d")->dtype(), DataType::Int(8));
  EXPECT_EQ(Render(FindBinding(main, "a")->var()->struct_info()),
            "R.Tensor((), dtype=\"float16\")");
  const auto* e = ir::As<ir::PrimValueNode>(FindBinding(main, "e")->value());
  EXPECT_EQ(ir::AsConstInt(e->value()), 7);
  EXPECT_EQ(e->value()->dtype(), DataType::Int(64));
  EXPECT_EQ(ir::ToString(ir::As<ir::PrimValueNode>(FindBinding(main, "f")->value())->value()),
            "n + 1");
  EXPECT_EQ(Render(FindBinding(main, "f")->var()->struct_info()), "R.Prim(value=n + 1)");
  EXPECT_EQ(ir::As<ir::DataTypeImmNode>(FindBinding(main, "g")->value())->value(),
            DataType::Float(32));
  const auto* h = ir::As<ir::ShapeExprNode>(FindBinding(main, "h")->value());
  ASSERT_EQ(h->values().size(), 3u);
  EXPECT_EQ(ir::ToString(h->values()[1]), "n * 3");
  EXPECT_EQ(ir::AsConstInt(h->values()[2]), 4);
  // A bare number is bound as R.const, as TVM does.
  EXPECT_EQ(constant("i")->dtype(), DataType::Int(32));
  const auto* j = ir::As<ir::PrimValueNode>(FindBinding(main, "j")->value());
  EXPECT_EQ(j->value()->dtype(), DataType::Float(32));
}

TEST(ParserExpr, StructInfoSpellings) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(
        a: R.Tensor((2, 3), "float32"),
        b: R.Tensor([2, "n"], dtype="float16"),
        c: R.Tensor(dtype="int8", ndim=2),
        d: R.Tensor("bool"),
        e: R.Tensor,
        f: R.Tensor(shape=[4], dtype="float32"),
        g: R.Shape(ndim=3),
        h: R.Shape,
        i: R.Tuple(R.Tensor, R.Object),
        j: R.Tuple,
        k: R.Prim("int32"),
        l: R.Callable((R.Tensor, R.Shape), R.Object, False),
        m: R.Callable([R.Object], R.Object),
        o: R.Tuple([R.Prim("float32")]),
        p: R.Tensor((), "float32"),
    ) -> R.Tuple(R.Tensor((2, 3), "float32"), R.Tensor(dtype="int8", ndim=2)):
        return (a, c)
)");
  ir::Function main = GetFunction(mod, "main");
  std::vector<std::string> got;
  for (const ir::Var& p : main->params()) got.push_back(Render(p->struct_info()));
  std::vector<std::string> want = {
      "R.Tensor((2, 3), dtype=\"float32\")",
      "R.Tensor((2, n), dtype=\"float16\")",
      "R.Tensor(dtype=\"int8\", ndim=2)",
      "R.Tensor(dtype=\"bool\")",
      "R.Tensor",
      "R.Tensor((4,), dtype=\"float32\")",
      "R.Shape(ndim=3)",
      "R.Shape",
      "R.Tuple(R.Tensor, R.Object)",
      "R.Tuple",
      "R.Prim(\"int32\")",
      "R.Callable((R.Tensor, R.Shape), R.Object, False)",
      "R.Callable((R.Object,), R.Object, True)",
      "R.Tuple(R.Prim(\"float32\"))",
      "R.Tensor((), dtype=\"float32\")",
  };
  EXPECT_EQ(got, want);
  EXPECT_EQ(Render(main->ret_struct_info()),
            "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor(dtype=\"int8\", ndim=2))");
}

TEST(ParserExpr, OperatorSugarMapsToRelaxOps) {
  ir::IRModule mod = Parse(WithBody(R"(        a = x + y
        b = x - y
        c = x * y
        d = x / y
        e = x // y
        f = -x
        g = x < y
        h = x >= y
        i = x.astype("float16")
        j = x ** y
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  EXPECT_EQ(OpName(FindBinding(main, "a")->value()), "relax.add");
  EXPECT_EQ(OpName(FindBinding(main, "b")->value()), "relax.subtract");
  EXPECT_EQ(OpName(FindBinding(main, "c")->value()), "relax.multiply");
  EXPECT_EQ(OpName(FindBinding(main, "d")->value()), "relax.divide");
  EXPECT_EQ(OpName(FindBinding(main, "e")->value()), "relax.floor_divide");
  EXPECT_EQ(OpName(FindBinding(main, "f")->value()), "relax.negative");
  EXPECT_EQ(OpName(FindBinding(main, "g")->value()), "relax.less");
  EXPECT_EQ(OpName(FindBinding(main, "h")->value()), "relax.greater_equal");
  EXPECT_EQ(OpName(FindBinding(main, "i")->value()), "relax.astype");
  EXPECT_EQ(OpName(FindBinding(main, "j")->value()), "relax.power");
  const ir::CallNode& astype = CallOf(main, "i");
  ASSERT_EQ(astype.attrs().size(), 1u);
  EXPECT_EQ(astype.attrs()[0].first, "dtype");
  EXPECT_EQ(*astype.attrs()[0].second.as_string(), "float16");
  EXPECT_EQ(Render(FindBinding(main, "i")->var()->struct_info()),
            "R.Tensor((2,), dtype=\"float16\")");
}

TEST(ParserExpr, OpWrapperRewritesFollowTvm) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 2, 8), "float32"), b: R.Tensor((1, 2, 4, 4), "float32")):
        r = R.nn.relu6(q)
        a = R.nn.attention(q, q, q, b)
        c = R.nn.attention(q, q, q)
        return r
)");
  ir::Function main = GetFunction(mod, "main");
  const ir::CallNode& relu6 = CallOf(main, "r");
  EXPECT_EQ(OpName(FindBinding(main, "r")->value()), "relax.clip");
  ASSERT_EQ(relu6.args().size(), 3u);
  const auto* lo = ir::As<ir::PrimValueNode>(relu6.args()[1]);
  const auto* hi = ir::As<ir::PrimValueNode>(relu6.args()[2]);
  ASSERT_TRUE(lo != nullptr && hi != nullptr);
  EXPECT_EQ(ir::AsConstInt(lo->value()), 0);
  EXPECT_EQ(ir::AsConstInt(hi->value()), 6);
  EXPECT_EQ(OpName(FindBinding(main, "a")->value()), "relax.nn.attention_bias");
  EXPECT_EQ(CallOf(main, "a").args().size(), 4u);
  EXPECT_EQ(OpName(FindBinding(main, "c")->value()), "relax.nn.attention");
}

TEST(ParserExpr, EmptyDTypeAttributeIsVoid) {
  ir::IRModule mod = Parse(WithBody(R"(        m = R.matmul(x, y, out_dtype="")
        k = R.matmul(x, y, out_dtype="float16")
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  ASSERT_EQ(CallOf(main, "m").attrs().size(), 1u);
  EXPECT_EQ(*CallOf(main, "m").attrs()[0].second.as_string(), "void");
  EXPECT_EQ(*CallOf(main, "k").attrs()[0].second.as_string(), "float16");
}

TEST(ParserExpr, OpCallsArePlacedByTheOpSignature) {
  ir::IRModule mod = Parse(WithBody(R"(        a = R.sum(x, keepdims=True, axis=[0])
        b = R.permute_dims(x)
        c = R.call_pure_packed("my.func", x, y, sinfo_args=R.Tensor((2,), "float32"))
        d = R.call_dps_packed("my.dps", (x,), out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((3,), "float32")])
        e = R.call_dps_packed("my.dps", x, R.Tensor((2,), "float32"))
        f = R.call_tir(cls.k, (x, y), out_sinfo=R.Tensor((2,), "float32"), tir_vars=R.shape([n]))
        g = R.call_tir(cls.k, (x,), R.Tensor((2,), "float32"), [n])
        h = R.call_builtin_with_ctx("vm.builtin.f", (x,), sinfo_args=(R.Object,))
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  const ir::CallNode& a = CallOf(main, "a");
  ASSERT_EQ(a.args().size(), 1u);
  ASSERT_EQ(a.attrs().size(), 2u);  // every declared attr, in TVM's declaration order
  EXPECT_EQ(a.attrs()[0].first, "axis");
  EXPECT_EQ(a.attrs()[1].first, "keepdims");
  EXPECT_EQ(Render(a.struct_info()), "R.Tensor((1,), dtype=\"float32\")");
  // Completed with its default, as TVM's constructor stores it.
  ASSERT_EQ(CallOf(main, "b").attrs().size(), 1u);
  EXPECT_EQ(CallOf(main, "b").attrs()[0].first, "axes");
  EXPECT_TRUE(CallOf(main, "b").attrs()[0].second.is_none());
  const ir::CallNode& c = CallOf(main, "c");
  EXPECT_EQ(c.op_node()->name(), "relax.call_pure_packed");
  ASSERT_EQ(c.args().size(), 3u);
  EXPECT_EQ(ir::As<ir::ExternFuncNode>(c.args()[0])->global_symbol(), "my.func");
  ASSERT_EQ(c.sinfo_args().size(), 1u);
  // out_sinfo given as a list is one tuple struct info.
  const ir::CallNode& d = CallOf(main, "d");
  ASSERT_EQ(d.sinfo_args().size(), 1u);
  EXPECT_EQ(Render(d.sinfo_args()[0]),
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"))");
  EXPECT_EQ(ir::As<ir::ExternFuncNode>(d.args()[0])->global_symbol(), "my.dps");
  // A single argument of the call_* family is wrapped in a tuple; out_sinfo by position.
  const ir::CallNode& e = CallOf(main, "e");
  ASSERT_EQ(e.args().size(), 2u);
  EXPECT_EQ(ir::As<ir::TupleNode>(e.args()[1])->fields().size(), 1u);
  EXPECT_EQ(Render(e.sinfo_args()[0]), "R.Tensor((2,), dtype=\"float32\")");
  const ir::CallNode& f = CallOf(main, "f");
  ASSERT_EQ(f.args().size(), 3u);
  EXPECT_EQ(f.args()[0], mod.GetGlobalVar("k"));
  EXPECT_EQ(ir::As<ir::ShapeExprNode>(f.args()[2])->values().size(), 1u);
  const ir::CallNode& g = CallOf(main, "g");
  ASSERT_EQ(g.args().size(), 3u);
  EXPECT_EQ(g.args()[2]->kind(), ir::NodeKind::kShapeExpr);
  const ir::CallNode& h = CallOf(main, "h");
  EXPECT_EQ(ir::As<ir::ExternFuncNode>(h.args()[0])->global_symbol(), "vm.builtin.f");
  EXPECT_EQ(Render(FindBinding(main, "h")->var()->struct_info()), "R.Object");
}

TEST(ParserExpr, PackedCalls) {
  ir::IRModule mod = Parse(WithBody(
      R"(        a = R.call_packed("f", x, y, sinfo_args=(R.Tensor((2,), "float32"), R.Object))
        b: R.Object = R.call_packed("g", x, 1, "s", sinfo_args=R.Object, flag=True)
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  const ir::CallNode& a = CallOf(main, "a");
  EXPECT_EQ(ir::As<ir::ExternFuncNode>(a.op())->global_symbol(), "f");
  EXPECT_EQ(a.args().size(), 2u);
  EXPECT_EQ(a.sinfo_args().size(), 2u);
  EXPECT_EQ(Render(FindBinding(main, "a")->var()->struct_info()),
            "R.Tuple(R.Tensor((2,), dtype=\"float32\"), R.Object)");
  const ir::CallNode& b = CallOf(main, "b");
  ASSERT_EQ(b.args().size(), 3u);
  EXPECT_EQ(b.args()[1]->kind(), ir::NodeKind::kPrimValue);
  EXPECT_EQ(ir::As<ir::StringImmNode>(b.args()[2])->value(), "s");
  ASSERT_EQ(b.attrs().size(), 1u);
  EXPECT_EQ(b.attrs()[0].first, "flag");
}

// Binary operators by Python's precedence, each level associating to the left.
TEST(ParserExpr, BinaryOperatorPrecedence) {
  ir::IRModule mod = Parse(WithBody(
      R"(        a = R.shape([n * 2 + n // 3 - n % 5 * 7, n - (n + 1) - n, (n + 2) * n, 1 + n * 3 + 2 * n])
        return x
)"));
  const auto* shape =
      ir::As<ir::ShapeExprNode>(FindBinding(GetFunction(mod, "main"), "a")->value());
  ASSERT_EQ(shape->values().size(), 4u);
  EXPECT_EQ(ir::ToString(shape->values()[0]), "n * 2 + n // 3 - n % 5 * 7");
  EXPECT_EQ(ir::ToString(shape->values()[1]), "n - (n + 1) - n");
  EXPECT_EQ(ir::ToString(shape->values()[2]), "(n + 2) * n");
  EXPECT_EQ(ir::ToString(shape->values()[3]), "1 + n * 3 + 2 * n");
}

TEST(ParserExpr, TirIntrinsicsInSymbolicExpressions) {
  ir::IRModule mod = Parse(WithBody(
      R"(        a = R.shape([T.max(n, 1), T.min(n, 2) + T.floordiv(n, 2), T.Cast("int64", T.int32(5)), n % 3, T.truncmod(n, 4)])
        return x
)"));
  const auto* shape =
      ir::As<ir::ShapeExprNode>(FindBinding(GetFunction(mod, "main"), "a")->value());
  ASSERT_EQ(shape->values().size(), 5u);
  EXPECT_EQ(ir::ToString(shape->values()[0]), "T.max(n, 1)");
  EXPECT_EQ(ir::ToString(shape->values()[1]), "T.min(n, 2) + n // 2");
  EXPECT_EQ(ir::ToString(shape->values()[2]), "T.Cast(\"int64\", T.int32(5))");
  EXPECT_EQ(ir::ToString(shape->values()[3]), "n % 3");
  EXPECT_EQ(ir::ToString(shape->values()[4]), "T.truncmod(n, 4)");
}

TEST(ParserExpr, IndexMapLambdasAreAttributeCalls) {
  ir::IRModule mod = Parse(WithBody(
      R"(        a: R.Tensor((1, 2), "float32") = R.my_layout(x, index_map=T.index_map(lambda i: (i // 2, i % 2), index_dtype="int32"), other=lambda j: j)
        return x
)"));
  const ir::CallNode& a = CallOf(GetFunction(mod, "main"), "a");
  ASSERT_EQ(a.attrs().size(), 2u);
  const ir::AttrCall* index_map = a.attrs()[0].second.as_call();
  ASSERT_NE(index_map, nullptr);
  EXPECT_EQ(index_map->callee, "T.index_map");
  // index_dtype is checked and dropped: TVM does not print it, so the vars are int64 as they
  // are in the printed text.
  EXPECT_TRUE(index_map->kwargs.empty());
  const ir::AttrCall* lambda = index_map->args[0].as_call();
  ASSERT_NE(lambda, nullptr);
  EXPECT_EQ(lambda->callee, "lambda");
  const ir::AttrList& params = *lambda->args[0].as_list();
  ASSERT_EQ(params.size(), 1u);
  const ir::PrimExpr& i = *params[0].as_prim_expr();
  EXPECT_EQ(i->dtype(), DataType::Int(64));
  const ir::AttrList& results = *lambda->args[1].as_list();
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(ir::ToString(*results[0].as_prim_expr()), "i // 2");
  // The results use the lambda's own parameter var.
  EXPECT_EQ(ir::As<ir::BinaryNode>(*results[1].as_prim_expr())->a(), i);
  const ir::AttrCall* bare = a.attrs()[1].second.as_call();
  ASSERT_NE(bare, nullptr);
  EXPECT_EQ(bare->callee, "lambda");
}

TEST(ParserExpr, ConstantFoldingFollowsPython) {
  ir::IRModule mod = Parse(
      WithBody(R"(        a = R.shape([2 * 3 + 1, -7 // 2, -7 % 3, 2 ** 10, (1 << 4) | 1, 10 - -3])
        b = R.const(1 / 4, "float32")
        return x
)"));
  ir::Function main = GetFunction(mod, "main");
  const auto* a = ir::As<ir::ShapeExprNode>(FindBinding(main, "a")->value());
  std::vector<int64_t> values;
  for (const ir::PrimExpr& v : a->values()) values.push_back(*ir::AsConstInt(v));
  EXPECT_EQ(values, (std::vector<int64_t>{7, -4, 2, 1024, 17, 13}));
  EXPECT_EQ(std::get<double>(ir::As<ir::ConstantNode>(FindBinding(main, "b")->value())->scalar()),
            0.25);
}

}  // namespace
}  // namespace pipesplit::script
