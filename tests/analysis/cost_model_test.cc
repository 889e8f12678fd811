// The cost model: FLOPs of call_tir kernels from their loop nests (expected values derived here
// from the extents written in the kernels), of high-level ops from struct info, and the bounds
// of symbolic dims (tir_var_upper_bound, assumptions, unbound vars).
#include "pipesplit/analysis/cost_model.h"

#include <gtest/gtest.h>

#include "pipesplit/script/parser.h"

namespace pipesplit::analysis {
namespace {

constexpr int64_t kM = 8, kN = 16, kK = 32;

// A matmul kernel over (n, K) x (K, N) with a symbolic row count, an element-wise kernel with
// exp and a multiply-add, and a copy; one Relax function calling them.
const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True)
    def mm(var_A: T.handle, B: T.Buffer((T.int64(32), T.int64(16)), "float32"), var_C: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n, T.int64(32)))
        C = T.match_buffer(var_C, (n, T.int64(16)))
        for i, j, k in T.grid(n, T.int64(16), T.int64(32)):
            with T.block("C"):
                v_i, v_j, v_k = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[v_i, v_j] = T.float32(0)
                C[v_i, v_j] = C[v_i, v_j] + A[v_i, v_k] * B[v_k, v_j]

    @T.prim_func(private=True)
    def ew(A: T.Buffer((T.int64(8), T.int64(16)), "float32"), C: T.Buffer((T.int64(8), T.int64(16)), "float32")):
        for i in range(T.int64(8)):
            for j in range(T.int64(16)):
                with T.block("C"):
                    v_i, v_j = T.axis.remap("SS", [i, j])
                    C[v_i, v_j] = T.exp(A[v_i, v_j]) * T.float32(2) + T.float32(1)
        for i in range(T.int64(8)):
            with T.block("copy"):
                v_i = T.axis.spatial(T.int64(8), i)
                C[v_i, 0] = A[v_i, 0]

    @R.function
    def main(x: R.Tensor(("n", 32), dtype="float32"), w: R.Tensor((32, 16), dtype="float32"), y: R.Tensor((8, 16), dtype="float32")) -> R.Tensor((8, 16), dtype="float32"):
        n = T.int64()
        R.func_attr({"tir_var_upper_bound": {"n": 8}})
        cls = Module
        with R.dataflow():
            c = R.call_tir(cls.mm, (x, w), out_sinfo=R.Tensor((n, 16), dtype="float32"))
            e = R.call_tir(cls.ew, (y,), out_sinfo=R.Tensor((8, 16), dtype="float32"))
            wt = R.permute_dims(w)
            m = R.matmul(y, wt)
            r = R.reshape(e, R.shape([16, 8]))
            s = R.nn.softmax(e, axis=-1)
            t = R.sum(e, axis=[1])
            a = R.add(e, y)
            R.output(a)
        return a
)";

class CostModelTest : public testing::Test {
 protected:
  void SetUp() override {
    mod_ = script::ParseModule(kModule, "cost_model_test.py");
    func_ = mod_.LookupFunction("main");
    ASSERT_TRUE(func_);
  }
  const ir::Binding& BindingOf(const std::string& name) const {
    for (const ir::Binding& b : ir::As<ir::SeqExprNode>(func_->body())->blocks()[0]->bindings()) {
      if (b->var()->name_hint() == name) return b;
    }
    static ir::Binding none;
    ADD_FAILURE() << "no binding " << name;
    return none;
  }
  Cost CostOf(const std::string& name, const ShapeBounds& bounds) const {
    std::optional<Cost> c = CostModel(mod_).BindingCost(BindingOf(name), bounds);
    EXPECT_TRUE(c.has_value()) << name;
    return c.value_or(Cost{});
  }

  ir::IRModule mod_;
  ir::Function func_;
};

TEST_F(CostModelTest, MatmulKernelFromLoopNestAtTheUpperBound) {
  // n bounded by tir_var_upper_bound = 8: the block runs n * N * K times, one mul and one add.
  Cost c = CostOf("c", ShapeBounds(func_, {}));
  EXPECT_EQ(c.flops, 2 * kM * kN * kK);
  EXPECT_EQ(c.bytes, 4 * (kM * kK + kK * kN + kM * kN));
}

TEST_F(CostModelTest, AssumptionOverridesUpperBound) {
  Cost c = CostOf("c", ShapeBounds(func_, {{"n", 100}}));
  EXPECT_EQ(c.flops, 2 * 100 * kN * kK);
}

TEST_F(CostModelTest, ElementwiseKernelCountsEachOperationAndNotCopies) {
  // exp, *, + per element of the 8 x 16 loop nest; the copy block adds nothing.
  EXPECT_EQ(CostOf("e", ShapeBounds(func_, {})).flops, 3 * 8 * 16);
}

TEST_F(CostModelTest, HighLevelOpsFromStructInfo) {
  ShapeBounds bounds(func_, {});
  EXPECT_EQ(CostOf("m", bounds).flops, 2 * 8 * 32 * 16);  // [8,16] x [16,32]
  EXPECT_EQ(CostOf("r", bounds).flops, 0);                // data movement
  EXPECT_EQ(CostOf("r", bounds).bytes, 2 * 8 * 16 * 4);   // read and written once
  EXPECT_EQ(CostOf("s", bounds).flops, 5 * 8 * 16);
  EXPECT_EQ(CostOf("t", bounds).flops, 8 * 16);  // one per input element
  EXPECT_EQ(CostOf("a", bounds).flops, 8 * 16);
}

TEST_F(CostModelTest, UnboundSymbolicVarIsReported) {
  ShapeBounds none(std::map<std::string, int64_t>{});
  EXPECT_FALSE(CostModel(mod_).BindingCost(BindingOf("c"), none).has_value());
  EXPECT_EQ(none.FirstUnbound(BindingOf("c")->var()->struct_info()), "n");
  EXPECT_EQ(ShapeBounds(func_, {}).FirstUnbound(BindingOf("c")->var()->struct_info()), "");
}

TEST(CostModelKernelTest, UnknownExtentGivesNoKernelCost) {
  ir::IRModule mod = script::ParseModule(kModule, "cost_model_test.py");
  auto mm = ir::Cast<ir::PrimFuncNode>(mod.Lookup("mm"));
  ASSERT_TRUE(mm);
  ShapeBounds none(std::map<std::string, int64_t>{});
  EXPECT_FALSE(CostModel::KernelFlops(mm, {}, none).has_value());
  // The kernel's own n, bound by identity.
  ir::TirVarMap values;
  ir::VisitTirVars((*mm->BufferOf(mm->params()[0].get()))->shape()[0],
                   [&](const ir::TirVar& v) { values[v.get()] = ir::IntImm(3); });
  EXPECT_EQ(CostModel::KernelFlops(mm, values, none), 2 * 3 * kN * kK);
}

}  // namespace
}  // namespace pipesplit::analysis
