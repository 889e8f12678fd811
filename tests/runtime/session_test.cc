// Worker groups on threads: staged runs equal unstaged ones bit for bit; faults end every
// worker with a named error.
#include "pipesplit/runtime/exec/session.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

// Three stages; the last stage also uses x (a parameter) and the first stage's `a` (forwarded
// through stage 1).
constexpr const char* kThreeStages = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, "n"), dtype="float32"), packed_params: R.Tuple(R.Tensor(("n", "n"), dtype="float32"), R.Tensor(("n", "n"), dtype="float32"), R.Tensor(("n", "n"), dtype="float32"))) -> R.Tensor((2, "n"), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 3})
        with R.dataflow():
            w0: R.Tensor((n, n), dtype="float32") = packed_params[0]
            a: R.Tensor((2, n), dtype="float32") = R.matmul(x, w0)
            b1: R.Tensor((2, n), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((2, n), dtype="float32"),))
            w1: R.Tensor((n, n), dtype="float32") = packed_params[1]
            c: R.Tensor((2, n), dtype="float32") = R.matmul(b1, w1)
            d: R.Tensor((2, n), dtype="float32") = R.nn.silu(c)
            b2: R.Tensor((2, n), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", d, sinfo_args=(R.Tensor((2, n), dtype="float32"),))
            w2: R.Tensor((n, n), dtype="float32") = packed_params[2]
            e: R.Tensor((2, n), dtype="float32") = R.matmul(b2, w2)
            f: R.Tensor((2, n), dtype="float32") = R.add(e, a)
            gv: R.Tensor((2, n), dtype="float32") = R.add(f, x)
            R.output(gv)
        return gv
)";

std::vector<Tensor> Weights(int n) {
  std::vector<Tensor> out;
  for (int k = 0; k < 3; ++k) {
    std::vector<double> v(n * n);
    for (int i = 0; i < n * n; ++i) v[i] = 0.25 * ((i * 7 + k * 3) % 11) - 1.0;
    out.push_back(MakeTensor(DataType::Float(32), {n, n}, v));
  }
  return out;
}

std::vector<Value> Inputs(int n) {
  std::vector<double> v(2 * n);
  for (int i = 0; i < 2 * n; ++i) v[i] = 0.5 * i - 1.25;
  return {Value(MakeTensor(DataType::Float(32), {2, n}, v))};
}

Tensor Only(const Value& v) {
  std::vector<Tensor> flat;
  v.Flatten(&flat);
  EXPECT_EQ(flat.size(), 1u);
  return flat.at(0);
}

class SessionTest : public testing::Test {
 protected:
  void SetUp() override {
    unsplit_ = script::ParseModule(kThreeStages, "three.py");
    split_ = transform::RewritePipelineStages(unsplit_);
  }
  ir::IRModule unsplit_;
  ir::IRModule split_;
};

TEST_F(SessionTest, StagedRunIsBitIdenticalToUnstaged) {
  InMemoryWeights weights(Weights(4));
  RunResult reference = RunThreads(unsplit_, "main", Inputs(4), weights, {});
  SessionOptions options;
  options.num_groups = 3;
  RunResult staged = RunThreads(split_, "main", Inputs(4), weights, options);
  EXPECT_TRUE(BitwiseEqual(Only(reference.output), Only(staged.output)));
  // Each group loaded only its own weight.
  ASSERT_EQ(staged.workers.size(), 3u);
  for (int g = 0; g < 3; ++g) {
    EXPECT_EQ(staged.workers[g].function, "main_stage" + std::to_string(g));
    EXPECT_EQ(staged.workers[g].weight_indices, (std::vector<int64_t>{g}));
    EXPECT_EQ(staged.workers[g].weight_bytes, 4 * 4 * 4);
  }
  EXPECT_EQ(reference.workers[0].weight_bytes, 3 * 4 * 4 * 4);
}

TEST_F(SessionTest, GroupSizeTwoRunsEveryWorker) {
  InMemoryWeights weights(Weights(3));
  RunResult reference = RunThreads(unsplit_, "main", Inputs(3), weights, {});
  SessionOptions options;
  options.num_groups = 3;
  options.group_size = 2;
  RunResult staged = RunThreads(split_, "main", Inputs(3), weights, options);
  EXPECT_TRUE(BitwiseEqual(Only(reference.output), Only(staged.output)));
  EXPECT_EQ(staged.workers.size(), 6u);
  EXPECT_EQ(staged.workers[5].group, 2);
}

TEST_F(SessionTest, GroupCountMustMatchStages) {
  InMemoryWeights weights(Weights(2));
  SessionOptions options;
  options.num_groups = 2;
  try {
    RunThreads(split_, "main", Inputs(2), weights, options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("'main' has 3 pipeline stages but the session has 2 groups"));
  }
}

TEST_F(SessionTest, WorkerErrorStopsEveryWorkerAndNamesTheBinding) {
  // Weight 1 has the wrong shape: stage 1's matmul fails; stages 0 and 2 must not hang.
  std::vector<Tensor> w = Weights(4);
  w[1] = MakeTensor(DataType::Float(32), {4, 4}, std::vector<double>(16, 1.0));
  ir::IRModule bad = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 4), dtype="float32"), packed_params: R.Tuple(R.Tensor((4, 4), dtype="float32"), R.Tensor((4, 4), dtype="float32"))) -> R.Tensor((2, 4), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((4, 4), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 4), dtype="float32") = R.matmul(x, w0)
            b: R.Tensor((2, 4), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((2, 4), dtype="float32"),))
            w1: R.Tensor((4, 4), dtype="float32") = packed_params[1]
            c: R.Tensor((2, 4), dtype="float32") = R.matmul(b, w1)
            gv: R.Tensor((2, 4), dtype="float32") = R.reshape(c, R.shape([3, 3]))
            R.output(gv)
        return gv
)",
                                         "bad.py");
  ir::IRModule split = transform::RewritePipelineStages(bad);
  InMemoryWeights weights(w);
  SessionOptions options;
  options.num_groups = 2;
  auto start = std::chrono::steady_clock::now();
  try {
    RunThreads(split, "main", Inputs(4), weights, options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_EQ(e.worker(), 1);
    EXPECT_FALSE(e.aborted());
    EXPECT_THAT(e.what(), HasSubstr("worker 1 (group 1) failed in function 'main_stage1', "
                                    "binding 'gv' (bad.py:12:13): reshape"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
}

TEST_F(SessionTest, MissingSendTimesOut) {
  // Stage 1 waits for a tensor stage 0 never sends.
  ir::IRModule mod = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.s0, x, R.shape([]), packed_params), (cls.s1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False, private=True)
    def s0(x: R.Tensor((2,), dtype="float32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((2,), dtype="float32")):
        return (x,)

    @R.function(pure=False, private=True)
    def s1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((2,), dtype="float32")):
        with R.dataflow():
            y = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((2,), dtype="float32"))
            R.output(y)
        return (y,)
)",
                                         "timeout.py");
  InMemoryWeights weights({});
  SessionOptions options;
  options.num_groups = 2;
  options.timeout = std::chrono::milliseconds(300);
  auto start = std::chrono::steady_clock::now();
  try {
    RunThreads(mod, "main", {Value(MakeTensor(DataType::Float(32), {2}, {1, 2}))}, weights,
               options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("worker 1 (group 1) failed in function 's1', binding 'y' "
                                    "(timeout.py:16:13): timed out after 300 ms waiting for a "
                                    "tensor from worker 0"));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(SessionTest, ReceivedShapeMismatchIsAnError) {
  ir::IRModule mod = script::ParseModule(R"(@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((2,), dtype="float32"), packed_params: R.Object) -> R.Object:
        cls = Module
        gv: R.Object = R.call_builtin_with_ctx("mlc.multi_gpu.DispatchFunctionByGroup", (((cls.s0, x, R.shape([]), packed_params), (cls.s1, R.shape([]), packed_params)),), sinfo_args=(R.Object,))
        return gv

    @R.function(pure=False, private=True)
    def s0(x: R.Tensor((2,), dtype="float32"), s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((2,), dtype="float32")):
        gv: R.Object = R.call_packed("runtime.disco.send_to_next_group", x)
        return (x,)

    @R.function(pure=False, private=True)
    def s1(s: R.Shape([]), packed_params: R.Object) -> R.Tuple(R.Tensor((3,), dtype="float32")):
        with R.dataflow():
            y = R.call_dps_packed("runtime.disco.recv_from_prev_group", R.tuple(), out_sinfo=R.Tensor((3,), dtype="float32"))
            R.output(y)
        return (y,)
)",
                                         "mismatch.py");
  InMemoryWeights weights({});
  SessionOptions options;
  options.num_groups = 2;
  try {
    RunThreads(mod, "main", {Value(MakeTensor(DataType::Float(32), {2}, {1, 2}))}, weights,
               options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("worker 1 (group 1) failed in function 's1', binding 'y' "
                                    "(mismatch.py:17:13): received float32[2] from worker 0 but "
                                    "the receive declares float32[3]"));
  }
}

TEST_F(SessionTest, MistypedWeightIsNamed) {
  std::vector<Tensor> w = Weights(4);
  w[2] = MakeIntTensor(DataType::Int(32), {4, 4}, std::vector<int64_t>(16, 1));
  SessionOptions options;
  options.num_groups = 3;
  InMemoryWeights weights(w);
  try {
    RunThreads(split_, "main", Inputs(4), weights, options);
    FAIL();
  } catch (const WorkerError& e) {
    EXPECT_THAT(e.what(), HasSubstr("packed_params[2] ('param_2') is int32[4, 4] but "
                                    "'main_stage2' reads it as float32[?, ?]"));
  }
}

}  // namespace
}  // namespace pipesplit::runtime
