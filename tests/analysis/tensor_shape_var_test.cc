// Tensors whose shape is a Relax shape var, R.Tensor(s, "float32") with `s: R.Shape(ndim=2)`:
// parse / print round trip, structural equality and hashing, IsBaseOf, erasure out of scope,
// the ExprMutator's substitution, reshape inference, well-formedness and the parser's error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "tests/analysis/well_formed_test_util.h"
#include "tests/script/parser/parser_test_util.h"

namespace pipesplit::analysis {
namespace {

using namespace testing;  // NOLINT
using ::testing::ElementsAre;
using ::testing::HasSubstr;

StructInfo ShapeOfRank(int ndim) { return ir::Make<ShapeSInfoNode>(ndim); }
StructInfo TensorOf(const Var& shape_var, DataType dtype = DataType::Float(32)) {
  return ir::Make<TensorSInfoNode>(shape_var, dtype);
}
const TensorSInfoNode& AsTensor(const StructInfo& sinfo) {
  const auto* t = ir::As<TensorSInfoNode>(sinfo);
  EXPECT_NE(t, nullptr);
  return *t;
}

// As TVM prints a reshape by a shape computed at run time (the corpus's DDReshape).
constexpr const char* kReshapeModule = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), dtype="int64"), y: R.Tensor((16,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
        lv: R.Shape(ndim=2) = R.tensor_to_shape(x)
        gv: R.Tensor(lv, dtype="float32") = R.reshape(y, lv)
        return gv
)";

// The bindings of `main`'s first block.
const std::vector<Binding>& MainBindings(const IRModule& mod) {
  const auto* seq = ir::As<SeqExprNode>(mod.LookupFunction("main")->body());
  return seq->blocks()[0]->bindings();
}

TEST(TensorShapeVarTest, ParsesTheVarAndPrintsItBack) {
  IRModule mod = script::ParseModule(kReshapeModule, "reshape.py");
  const std::vector<Binding>& bindings = MainBindings(mod);
  ASSERT_EQ(bindings.size(), 2u);
  const TensorSInfoNode& gv = AsTensor(bindings[1]->var()->struct_info());
  EXPECT_EQ(gv.shape_var(), bindings[0]->var());  // the var itself, not a copy of its info
  EXPECT_FALSE(gv.shape().has_value());
  EXPECT_EQ(gv.ndim(), 2);
  EXPECT_EQ(script::PrintModule(mod), kReshapeModule);
  IRModule again = script::ParseModule(script::PrintModule(mod), "again.py");
  StructuralDifference difference;
  EXPECT_TRUE(StructuralEqual(mod, again, &difference)) << difference.ToString();
  EXPECT_EQ(StructuralHash(mod), StructuralHash(again));
}

// The corpus modules TVM printed with R.Tensor(shape, ...): byte-identical when printed again,
// and structurally equal after the round trip.
TEST(TensorShapeVarTest, CorpusModulesRoundTrip) {
  const std::filesystem::path dir =
      std::filesystem::path(PIPESPLIT_SOURCE_DIR) / ".." / "shared" / "corpus" / "tvm-printer";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "corpus not available";
  for (const char* name : {"test_vm_builtin_lower__Before__3", "test_vm_builtin_lower__Before__4",
                           "test_vm_builtin_lower__Expected__2",
                           "test_transform_legalize_ops_manipulate__DDReshape"}) {
    std::ifstream in(dir / (std::string(name) + ".tvm.py"));
    std::stringstream text;
    text << in.rdbuf();
    IRModule mod = script::ParseModule(text.str(), name);
    std::string printed = script::PrintModule(mod);
    EXPECT_EQ(printed, text.str()) << name;
    EXPECT_THAT(printed, ::testing::AnyOf(HasSubstr("R.Tensor(shape, dtype=\"float32\")"),
                                          HasSubstr("R.Tensor(lv, dtype=\"float32\")")));
    StructuralDifference difference;
    EXPECT_TRUE(StructuralEqual(mod, script::ParseModule(printed, name), &difference))
        << name << ": " << difference.ToString();
    EXPECT_THAT(analysis::testing::Check(mod), ::testing::IsEmpty()) << name;
  }
}

TEST(TensorShapeVarTest, ParsesAPositionalDTypeAndAParameterShape) {
  IRModule mod = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), "float32"), shape: R.Shape):
        b: R.Tensor(shape, "float32") = R.reshape(A, shape)
        return b
)",
                                     "param.py");
  const Function main = mod.LookupFunction("main");
  const TensorSInfoNode& b = AsTensor(MainBindings(mod)[0]->var()->struct_info());
  EXPECT_EQ(b.shape_var(), main->params()[1]);
  EXPECT_EQ(b.ndim(), -1);
  EXPECT_THAT(script::PrintModule(mod),
              HasSubstr("b: R.Tensor(shape, dtype=\"float32\") = R.reshape(A, shape)"));
}

TEST(TensorShapeVarTest, ANameThatIsNotAShapeIsALocatedError) {
  EXPECT_EQ(script::testing::ParseError(R"(@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), "float32")):
        b: R.Tensor(A, "float32") = R.reshape(A, R.shape([4, 4]))
        return b
)"),
            "test.py:5:21: error: the shape of R.Tensor must be a tuple or list of dimensions or "
            "a shape var");
}

TEST(TensorShapeVarTest, ANdimThatContradictsTheVarIsALocatedError) {
  EXPECT_EQ(script::testing::ParseError(R"(@I.ir_module
class Module:
    @R.function
    def main(A: R.Tensor((16,), "float32"), s: R.Shape(ndim=2)):
        b: R.Tensor(s, "float32", ndim=3) = R.reshape(A, s)
        return b
)"),
            "test.py:5:40: error: ndim 3 does not match the shape var's 2");
}

TEST(TensorShapeVarTest, ReturnStructInfoCannotNameTheVar) {
  IRModule mod = script::ParseModule(kReshapeModule, "reshape.py");
  const TensorSInfoNode& ret = AsTensor(mod.LookupFunction("main")->ret_struct_info());
  EXPECT_EQ(ret.shape_var(), nullptr);
  EXPECT_FALSE(ret.shape().has_value());
  EXPECT_EQ(ret.ndim(), 2);
  EXPECT_EQ(ret.dtype(), DataType::Float(32));
}

TEST(TensorShapeVarTest, EraseToWellDefinedKeepsOnlyAcceptedVars) {
  Var s = V("s", ShapeOfRank(3));
  StructInfo t = TupleSInfo({TensorOf(s), F32({2})});
  auto any_tir = [](const TirVarNode&) { return true; };
  StructInfo kept =
      ir::EraseToWellDefined(t, any_tir, [&](const VarNode& v) { return &v == s.get(); });
  EXPECT_EQ(kept, t);  // unchanged: the same node
  StructInfo erased = ir::EraseToWellDefined(t, any_tir);
  const auto& fields = ir::As<TupleSInfoNode>(erased)->fields();
  EXPECT_EQ(AsTensor(fields[0]).shape_var(), nullptr);
  EXPECT_EQ(AsTensor(fields[0]).ndim(), 3);
  EXPECT_EQ(fields[1], ir::As<TupleSInfoNode>(t)->fields()[1]);
}

TEST(TensorShapeVarTest, StructuralEqualityComparesTheVar) {
  Var s1 = V("s", ShapeOfRank(2));
  Var s2 = V("s", ShapeOfRank(2));
  StructuralDifference difference;
  EXPECT_TRUE(StructuralEqual(TensorOf(s1), TensorOf(s1)));
  EXPECT_FALSE(StructuralEqual(TensorOf(s1), TensorOf(s2), false, &difference));
  EXPECT_THAT(difference.path, HasSubstr("shape"));
  EXPECT_TRUE(StructuralEqual(TensorOf(s1), TensorOf(s2), /*map_free_vars=*/true));
  EXPECT_FALSE(StructuralEqual(TensorOf(s1), F32({2, 2})));
  EXPECT_FALSE(StructuralEqual(TensorOf(s1), ir::Make<TensorSInfoNode>(DataType::Float(32), 2)));
  EXPECT_FALSE(ir::StructInfoEqual(TensorOf(s1), TensorOf(s2)));
  EXPECT_TRUE(ir::StructInfoEqual(TensorOf(s1), TensorOf(s1)));
}

// main(a: R.Tensor((16,)), s1: R.Shape(ndim=2), s2: R.Shape(ndim=2)):
//   b: R.Tensor(s<which>) = R.reshape(a, s<which>); return b
Function ReshapeBy(int which) {
  Var a = V("a", F32({16}));
  Var s1 = V("s1", ShapeOfRank(2));
  Var s2 = V("s2", ShapeOfRank(2));
  const Var& s = which == 1 ? s1 : s2;
  Expr reshape = CallOp("relax.reshape", {a, s});
  Var b = V("b", reshape->struct_info());
  return Func({a, s1, s2}, Seq({Block({Bind(b, reshape)})}, b),
              ir::Make<TensorSInfoNode>(DataType::Float(32), 2));
}

TEST(TensorShapeVarTest, FunctionsMapTheVarLikeAnyOther) {
  EXPECT_TRUE(StructuralEqual(ReshapeBy(1), ReshapeBy(1)));
  EXPECT_EQ(StructuralHash(ReshapeBy(1)), StructuralHash(ReshapeBy(1)));
  StructuralDifference difference;
  EXPECT_FALSE(StructuralEqual(ReshapeBy(1), ReshapeBy(2), false, &difference));
  EXPECT_THAT(difference.ToString(), HasSubstr("s1"));
  EXPECT_NE(StructuralHash(ReshapeBy(1)), StructuralHash(ReshapeBy(2)));
}

TEST(TensorShapeVarTest, IsBaseOfAsTvm) {
  Var s1 = V("s1", ShapeOfRank(2));
  Var s2 = V("s2", ShapeOfRank(2));
  StructInfo rank2 = ir::Make<TensorSInfoNode>(DataType::Float(32), 2);
  StructInfo rank3 = ir::Make<TensorSInfoNode>(DataType::Float(32), 3);
  EXPECT_TRUE(ir::IsBaseOf(TensorOf(s1), TensorOf(s1)));
  EXPECT_FALSE(ir::IsBaseOf(TensorOf(s1), TensorOf(s2)));
  EXPECT_TRUE(ir::IsBaseOf(rank2, TensorOf(s1)));  // a rank-only base: the var's rank
  EXPECT_FALSE(ir::IsBaseOf(rank3, TensorOf(s1)));
  EXPECT_FALSE(ir::IsBaseOf(TensorOf(s1), rank2));  // not provable
  EXPECT_FALSE(ir::IsBaseOf(TensorOf(s1), F32({4, 4})));
  EXPECT_FALSE(ir::IsBaseOf(F32({4, 4}), TensorOf(s1)));
  EXPECT_FALSE(ir::IsBaseOf(TensorOf(s1, DataType::Float(16)), TensorOf(s1)));
  EXPECT_TRUE(ir::IsBaseOf(ir::Make<TensorSInfoNode>(DataType::Void(), -1), TensorOf(s1)));
}

TEST(TensorShapeVarTest, ReshapeByAShapeOfUnknownValuesNamesTheVar) {
  Var x = V("x", F32({16}));
  Var s = V("s", ShapeOfRank(2));
  StructInfo reshaped = CallOp("relax.reshape", {x, s})->struct_info();
  const TensorSInfoNode& by_var = AsTensor(reshaped);
  EXPECT_EQ(by_var.shape_var(), s);
  EXPECT_EQ(by_var.ndim(), 2);
  EXPECT_EQ(by_var.dtype(), DataType::Float(32));
  // Known values are used as the shape; a shape that is not a var keeps only the rank.
  Var known = V("known", ir::Make<ShapeSInfoNode>(std::vector<PrimExpr>{IntImm(4), IntImm(4)}));
  StructInfo reshaped_known = CallOp("relax.reshape", {x, known})->struct_info();
  const TensorSInfoNode& by_values = AsTensor(reshaped_known);
  EXPECT_EQ(by_values.shape_var(), nullptr);
  ASSERT_TRUE(by_values.shape().has_value());
  EXPECT_EQ(by_values.shape()->size(), 2u);
  // broadcast_to and zeros infer the same way.
  Var one = V("one", F32({1}));
  EXPECT_EQ(AsTensor(CallOp("relax.broadcast_to", {one, s})->struct_info()).shape_var(), s);
  EXPECT_EQ(AsTensor(CallOp("relax.zeros", {s}, {{"dtype", "float32"}})->struct_info()).shape_var(),
            s);
}

// An ExprMutator that renames the shape parameter.
class RenameShape : public ir::ExprMutator {
 public:
  RenameShape(const VarNode* from, Var to) { var_remap_[from] = std::move(to); }
};

TEST(TensorShapeVarTest, AMutatorsRenamedVarIsFollowed) {
  Var x = V("x", F32({16}));
  Var s = V("s", ShapeOfRank(2));
  Var t = V("t", ShapeOfRank(2));
  Expr reshape = CallOp("relax.reshape", {x, s});
  Var b = V("b", reshape->struct_info());
  Expr seq = Seq({Block({Bind(b, reshape)})}, b);
  RenameShape rename(s.get(), t);
  Expr out = rename.VisitExpr(seq);
  const auto* out_seq = ir::As<SeqExprNode>(out);
  ASSERT_NE(out_seq, nullptr);
  const Var& renamed = out_seq->blocks()[0]->bindings()[0]->var();
  EXPECT_NE(renamed, b);
  EXPECT_EQ(AsTensor(renamed->struct_info()).shape_var(), t);
}

TEST(TensorShapeVarTest, WellFormedNeedsTheVarInScope) {
  Var x = V("x", F32({16}));
  Var s = V("s", ShapeOfRank(1), At(3, 14));
  // b = R.match_cast(x, R.Tensor(s, "float32")): `s` is neither a parameter nor bound.
  Var b = V("b", TensorOf(s), At(4, 9));
  auto main_with = [&](std::vector<Var> params) {
    Expr body = Seq({Block({MatchCastTo(b, x, TensorOf(s), At(4, 9))})}, b);
    return Main(Func(std::move(params), body, ir::Make<TensorSInfoNode>(DataType::Float(32), 1)));
  };
  EXPECT_THAT(analysis::testing::Check(main_with({x})),
              ElementsAre("hand.py:4:9: variable 's' is not defined"));
  EXPECT_THAT(analysis::testing::Check(main_with({x, s})), ::testing::IsEmpty());
}

}  // namespace
}  // namespace pipesplit::analysis
