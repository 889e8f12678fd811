// Parser tests: the current TVMScript syntax (Aug 2026) — out_ty= / ty_args=, R.Any, T.int64 as
// a type, PEP 695 type parameters and module-level TypeVars, call_tir's symbolic arguments in
// its argument tuple, bound prim values — against the classic forms of the same IR.
#include <gtest/gtest.h>

#include "pipesplit/ir/expr.h"
#include "pipesplit/ir/prim_text.h"
#include "src/script/relax/parser_lower.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::script {
namespace {

using testing::AllBindings;
using testing::FindBinding;
using testing::GetFunction;
using testing::Parse;

std::string Render(const ir::StructInfo& s) { return RenderStructInfo(s); }

constexpr const char* kPep695 = R"(from __future__ import annotations

# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add(var_A: T.handle, var_B: T.handle, n: T.int64):
        T.evaluate(0)

    @R.function
    def main[n](x: R.Tensor((n, 4), dtype="float32"), s: T.int64, o: R.Any) -> R.Tensor((n, 4), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add, (x, n), out_ty=R.Tensor((n, 4), dtype="float32"))
        z: T.int64 = n + 1
        w = R.call_packed("f", x, ty_args=R.Tensor((n * 2, 4), dtype="float32"))
        u = n * 2
        return y
)";

TEST(ParserCurrentSyntax, Pep695Module) {
  ir::IRModule mod = Parse(kPep695);
  EXPECT_EQ(mod.syntax(), ir::Syntax::kCurrent);
  EXPECT_TRUE(mod.script_style().pep695);
  EXPECT_FALSE(mod.script_style().legacy_tir_header);
  ir::Function main = GetFunction(mod, "main");
  ASSERT_EQ(main->params().size(), 3u);
  EXPECT_EQ(Render(main->params()[0]->struct_info()), "R.Tensor((n, 4), dtype=\"float32\")");
  EXPECT_EQ(Render(main->params()[1]->struct_info()), "R.Prim(\"int64\")");
  EXPECT_EQ(Render(main->params()[2]->struct_info()), "R.Object");
  // The type parameter is the function's symbolic var, used bare in the body.
  const ir::PrimExpr& n =
      (*ir::As<ir::TensorSInfoNode>(main->params()[0]->struct_info())->shape())[0];
  const auto* call_tir = ir::As<ir::CallNode>(FindBinding(main, "y")->value());
  ASSERT_NE(call_tir, nullptr);
  // The trailing symbolic argument is call_tir's tir_vars, as the classic IR stores it.
  ASSERT_EQ(call_tir->args().size(), 3u);
  EXPECT_EQ(ir::As<ir::TupleNode>(call_tir->args()[1])->fields().size(), 1u);
  const auto* tir_vars = ir::As<ir::ShapeExprNode>(call_tir->args()[2]);
  ASSERT_NE(tir_vars, nullptr);
  EXPECT_EQ(tir_vars->values()[0], n);
  ASSERT_EQ(call_tir->sinfo_args().size(), 1u);
  // A prim-typed binding binds a prim value.
  ir::Binding z = FindBinding(main, "z");
  const auto* z_value = ir::As<ir::PrimValueNode>(z->value());
  ASSERT_NE(z_value, nullptr);
  EXPECT_EQ(ir::ToString(z_value->value()), "n + 1");
  EXPECT_EQ(Render(z->var()->struct_info()), "R.Prim(value=n + 1)");
  const auto* packed = ir::As<ir::CallNode>(FindBinding(main, "w")->value());
  ASSERT_EQ(packed->sinfo_args().size(), 1u);
  EXPECT_EQ(Render(packed->sinfo_args()[0]), "R.Tensor((n * 2, 4), dtype=\"float32\")");
  // The current syntax binds symbolic expressions too (the classic one aliases them).
  EXPECT_NE(ir::As<ir::PrimValueNode>(FindBinding(main, "u")->value()), nullptr);
}

TEST(ParserCurrentSyntax, ModuleLevelTypeVars) {
  ir::IRModule mod = Parse(R"(# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

M = TypeVar("M")

@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((M, "M * 2"), dtype="float32")) -> R.Tensor((M, "M * 2"), dtype="float32"):
        return x

    @R.function
    def g(x: R.Tensor((M,), dtype="float32")) -> R.Tensor((M,), dtype="float32"):
        y: R.Tensor((M,), dtype="float32") = x
        return y
)");
  EXPECT_EQ(mod.syntax(), ir::Syntax::kCurrent);
  EXPECT_FALSE(mod.script_style().pep695);
  ir::Function f = GetFunction(mod, "f");
  ir::Function g = GetFunction(mod, "g");
  const auto& f_shape = *ir::As<ir::TensorSInfoNode>(f->params()[0]->struct_info())->shape();
  const auto& g_shape = *ir::As<ir::TensorSInfoNode>(g->params()[0]->struct_info())->shape();
  ASSERT_NE(ir::As<ir::TirVarNode>(f_shape[0]), nullptr);
  EXPECT_EQ(ir::As<ir::BinaryNode>(f_shape[1])->a(), f_shape[0]);
  // Each function has its own var for the TypeVar.
  EXPECT_NE(f_shape[0], g_shape[0]);
  EXPECT_EQ(Render(f->ret_struct_info()), "R.Tensor((M, M * 2), dtype=\"float32\")");
}

TEST(ParserCurrentSyntax, ClassicFormsOfTheSameIr) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @T.prim_func
    def add(var_A: T.handle, var_B: T.handle, n: T.int64):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32"), s: R.Prim("int64"), o: R.Object) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.add, (x,), out_sinfo=R.Tensor((n, 4), dtype="float32"), tir_vars=R.shape([n]))
        u = n * 2
        t = R.shape([u])
        return y
)");
  EXPECT_EQ(mod.syntax(), ir::Syntax::kClassic);
  ir::Function main = GetFunction(mod, "main");
  const auto* call_tir = ir::As<ir::CallNode>(FindBinding(main, "y")->value());
  ASSERT_EQ(call_tir->args().size(), 3u);
  EXPECT_EQ(call_tir->args()[2]->kind(), ir::NodeKind::kShapeExpr);
  // Classic: `u = n * 2` names a symbolic expression; only y and t are bindings.
  EXPECT_EQ(AllBindings(main).size(), 2u);
  const auto* shape = ir::As<ir::ShapeExprNode>(FindBinding(main, "t")->value());
  EXPECT_EQ(ir::ToString(shape->values()[0]), "n * 2");
}

TEST(ParserCurrentSyntax, PrimTypedParametersAreSymbolicVarsWhenUsedSo) {
  ir::IRModule mod = Parse(R"(@I.ir_module
class Module:
    @R.function
    def main(n: T.int64, x: R.Tensor((n,), dtype="float32"), flag: T.bool) -> R.Tensor((n * 2,), dtype="float32"):
        m: T.int64 = n * 2
        y = R.call_packed("f", x, flag, ty_args=R.Tensor((n * 2,), dtype="float32"))
        return y
)");
  EXPECT_EQ(mod.syntax(), ir::Syntax::kCurrent);
  ir::Function main = GetFunction(mod, "main");
  // `n` is used as a symbolic value: the parameter is R.Prim(value=n), and `n` in the other
  // annotations and in arithmetic is that symbolic var.
  const auto* n_sinfo = ir::As<ir::PrimSInfoNode>(main->params()[0]->struct_info());
  ASSERT_NE(n_sinfo->value(), nullptr);
  const ir::PrimExpr& n = n_sinfo->value();
  EXPECT_EQ(ir::As<ir::TirVarNode>(n)->name(), "n");
  EXPECT_EQ((*ir::As<ir::TensorSInfoNode>(main->params()[1]->struct_info())->shape())[0], n);
  const auto* m = ir::As<ir::PrimValueNode>(FindBinding(main, "m")->value());
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(ir::As<ir::BinaryNode>(m->value())->a(), n);
  // `flag` is only passed as a value: it stays R.Prim("bool").
  EXPECT_EQ(Render(main->params()[2]->struct_info()), "R.Prim(\"bool\")");
  const auto* call = ir::As<ir::CallNode>(FindBinding(main, "y")->value());
  EXPECT_EQ(call->args()[1], main->params()[2]);
}

// The syntax is told by a prim-type annotation however it is spelled: T and its attribute may
// be apart (blanks, a line join, a comment inside brackets), and `T` in a longer name
// (R.Tensor) or in a comment is no prim type.
TEST(ParserCurrentSyntax, PrimTypeAnnotationsInAnySpelling) {
  const std::string head = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), )";
  const std::string tail = R"() -> R.Tensor((4,), dtype="float32"):
        return x
)";
  for (const std::string& annotation :
       {std::string("n: T.int64"), std::string("n: T . int64"), std::string("n: (T  # c\n .int64)"),
        std::string("n: T\\\n.int64")}) {
    SCOPED_TRACE(annotation);
    EXPECT_EQ(Parse(head + annotation + tail).syntax(), ir::Syntax::kCurrent);
  }
  for (const std::string& annotation :
       {std::string("n: R.Tensor((4,), dtype=\"float32\")"), std::string("n: R.Prim(\"int64\")"),
        std::string("n: R.Tuple(R.Object,  # T.int64\n R.Object)")}) {
    SCOPED_TRACE(annotation);
    EXPECT_EQ(Parse(head + annotation + tail).syntax(), ir::Syntax::kClassic);
  }
}

}  // namespace
}  // namespace pipesplit::script
