// The rewrite keeps most bindings as they are (StageMutator::FastVisitBinding, and weight reads
// that keep their var). These tests pin the bindings that must still change: one that uses a
// received value, one that uses a parameter, and one whose type names a symbolic var must
// refer to the stage's own copies, never to the original function's.
#include <gtest/gtest.h>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/ir/expr.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::transform {
namespace {

// The var bound by the binding named `name` in the function's dataflow block.
const ir::BindingNode* FindBinding(const ir::Function& func, const std::string& name) {
  const auto* seq = ir::As<ir::SeqExprNode>(func->body());
  for (const ir::BindingBlock& block : seq->blocks()) {
    for (const ir::Binding& b : block->bindings()) {
      if (b->var()->name_hint() == name) return b.get();
    }
  }
  return nullptr;
}

// The args of a call_tir-like call: args[1] is the tuple of inputs.
const std::vector<ir::Expr>& CallInputs(const ir::BindingNode& binding) {
  const auto* call = ir::As<ir::CallNode>(binding.value());
  EXPECT_NE(call, nullptr);
  const auto* tuple = ir::As<ir::TupleNode>(call->args()[1]);
  EXPECT_NE(tuple, nullptr);
  return tuple->fields();
}

constexpr const char* kStatic = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(a: T.Buffer((T.int64(4),), "float32"), b: T.Buffer((T.int64(4),), "float32"), c: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            c[i] = a[i] + b[i]

    @R.function
    def main(x: R.Tensor((4,), dtype="float32"), y: R.Tensor((4,), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor((4,), dtype="float32"))) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"num_input": 2, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            w0: R.Tensor((4,), dtype="float32") = packed_params[0]
            a: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (x, w0), out_sinfo=R.Tensor((4,), dtype="float32"))
            k: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (a, a), out_sinfo=R.Tensor((4,), dtype="float32"))
            m: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (k, k), out_sinfo=R.Tensor((4,), dtype="float32"))
            b: R.Tensor((4,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", m, sinfo_args=(R.Tensor((4,), dtype="float32"),))
            w1: R.Tensor((4,), dtype="float32") = packed_params[1]
            c: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (b, y), out_sinfo=R.Tensor((4,), dtype="float32"))
            d: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (c, w1), out_sinfo=R.Tensor((4,), dtype="float32"))
            gv: R.Tensor((4,), dtype="float32") = R.call_tir(cls.add, (d, d), out_sinfo=R.Tensor((4,), dtype="float32"))
            R.output(gv)
        return gv
)";

TEST(RewriteFastPath, UsesOfReceivedValuesAndParamsAreRewritten) {
  ir::IRModule mod = script::ParseModule(kStatic, "static.py");
  ir::Function orig = mod.LookupFunction("main");
  ir::IRModule out = RewritePipelineStages(mod);
  EXPECT_TRUE(analysis::CheckWellFormed(out).empty());
  ir::Function s0 = out.LookupFunction("main_stage0");
  ir::Function s1 = out.LookupFunction("main_stage1");
  ASSERT_NE(s0, nullptr);
  ASSERT_NE(s1, nullptr);

  // Stage 0: `a` uses the stage's parameter x (a fresh var), not main's.
  const ir::BindingNode* a = FindBinding(s0, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(CallInputs(*a)[0], s0->params()[0]);
  EXPECT_NE(CallInputs(*a)[0], orig->params()[0]);
  // `k` uses only a value of its own stage that keeps its var: kept as it is. `m` is sent on,
  // so it becomes a block output (a non-dataflow var): rewritten.
  EXPECT_EQ(FindBinding(s0, "k"), FindBinding(orig, "k"));
  ASSERT_NE(FindBinding(s0, "m"), nullptr);
  EXPECT_NE(FindBinding(s0, "m"), FindBinding(orig, "m"));
  EXPECT_FALSE(FindBinding(s0, "m")->var()->is_dataflow());

  // Stage 1: `c` uses the received value and the stage's parameter y.
  const ir::BindingNode* c = FindBinding(s1, "c");
  ASSERT_NE(c, nullptr);
  const ir::BindingNode* received =
      ir::As<ir::SeqExprNode>(s1->body())->blocks()[0]->bindings()[0].get();
  EXPECT_EQ(CallInputs(*c)[0], received->var());
  EXPECT_EQ(CallInputs(*c)[1], s1->params()[0]);
  EXPECT_NE(CallInputs(*c)[1], orig->params()[1]);
  // `d` uses the stage's read of weight 1, bound in stage 1 itself.
  const ir::BindingNode* d = FindBinding(s1, "d");
  const ir::BindingNode* w1 = FindBinding(s1, "w1");
  ASSERT_NE(d, nullptr);
  ASSERT_NE(w1, nullptr);
  EXPECT_EQ(CallInputs(*d)[1], w1->var());
}

constexpr const char* kSymbolic = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(var_a: T.handle, var_b: T.handle, var_c: T.handle):
        n = T.int64()
        a = T.match_buffer(var_a, (n,), "float32")
        b = T.match_buffer(var_b, (n,), "float32")
        c = T.match_buffer(var_c, (n,), "float32")
        for i in range(n):
            c[i] = a[i] + b[i]

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), packed_params: R.Tuple(R.Tensor((4,), dtype="float32"))) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            a: R.Tensor((n,), dtype="float32") = R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((n,), dtype="float32"))
            b: R.Tensor((n,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((n,), dtype="float32"),))
            c: R.Tensor((n,), dtype="float32") = R.call_tir(cls.add, (b, b), out_sinfo=R.Tensor((n,), dtype="float32"))
            gv: R.Tensor((n,), dtype="float32") = R.call_tir(cls.add, (c, c), out_sinfo=R.Tensor((n,), dtype="float32"))
            R.output(gv)
        return gv
)";

TEST(RewriteFastPath, BindingsNamingSymbolicVarsUseTheStagesCopy) {
  ir::IRModule mod = script::ParseModule(kSymbolic, "symbolic.py");
  ir::Function orig = mod.LookupFunction("main");
  ir::IRModule out = RewritePipelineStages(mod);
  EXPECT_TRUE(analysis::CheckWellFormed(out).empty());
  const auto* orig_c = ir::As<ir::TensorSInfoNode>(FindBinding(orig, "c")->var()->struct_info());
  ASSERT_NE(orig_c, nullptr);
  ir::PrimExpr n = (*orig_c->shape())[0];
  for (const char* name : {"main_stage0", "main_stage1"}) {
    ir::Function stage = out.LookupFunction(name);
    ASSERT_NE(stage, nullptr);
    // `s` (the second-to-last parameter) carries the stage's own copy of n.
    const auto* s =
        ir::As<ir::ShapeSInfoNode>(stage->params()[stage->params().size() - 2]->struct_info());
    ASSERT_NE(s, nullptr);
    ASSERT_EQ(s->values()->size(), 1u);
    ir::PrimExpr copy = (*s->values())[0];
    EXPECT_NE(copy, n);
    const char* binding = std::string(name) == "main_stage0" ? "a" : "c";
    const ir::BindingNode* b = FindBinding(stage, binding);
    ASSERT_NE(b, nullptr);
    EXPECT_NE(b, FindBinding(orig, binding));  // rewritten
    const auto* t = ir::As<ir::TensorSInfoNode>(b->var()->struct_info());
    ASSERT_NE(t, nullptr);
    EXPECT_EQ((*t->shape())[0], copy);
    const auto* call = ir::As<ir::CallNode>(b->value());
    ASSERT_NE(call, nullptr);
    const auto* out_sinfo = ir::As<ir::TensorSInfoNode>(call->sinfo_args()[0]);
    ASSERT_NE(out_sinfo, nullptr);
    EXPECT_EQ((*out_sinfo->shape())[0], copy);
  }
}

}  // namespace
}  // namespace pipesplit::transform
