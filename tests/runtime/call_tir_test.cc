// R.call_tir and friends run through a hand-written kernel library: the module's PrimFuncs
// only declare the kernels (their bodies are irrelevant here), the library implements them.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/runtime/exec/op_profile.h"

namespace pipesplit::runtime {
namespace {

using testing::HasSubstr;

// Kernel declarations matching tests/runtime/testdata/handwritten_kernels.cc.
constexpr const char* kKernels = R"(@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add(var_A: T.handle, var_B: T.handle, var_C: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        C = T.match_buffer(var_C, (n,))
        T.evaluate(0)

    @T.prim_func(private=True)
    def scale_shift(var_X: T.handle, var_Y: T.handle, var_Z: T.handle, k: T.int64):
        n = T.int64()
        X = T.match_buffer(var_X, (n,))
        Y = T.match_buffer(var_Y, (n,))
        Z = T.match_buffer(var_Z, (n,))
        T.evaluate(0)

    @T.prim_func(private=True)
    def accumulate(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        T.evaluate(0)

    @T.prim_func(private=True)
    def copy_f16(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,), "float16")
        B = T.match_buffer(var_B, (n,), "float16")
        T.evaluate(0)

    @T.prim_func(private=True)
    def always_fails(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        T.evaluate(0)

    @T.prim_func(private=True)
    def not_built(var_A: T.handle, var_B: T.handle):
        n = T.int64()
        A = T.match_buffer(var_A, (n,))
        B = T.match_buffer(var_B, (n,))
        T.evaluate(0)
)";

Tensor F32(Shape shape, std::initializer_list<double> values) {
  return MakeTensor(DataType::Float(32), std::move(shape), values);
}

class CallTirTest : public testing::Test {
 protected:
  // Runs `main` of the kernels above plus `functions` (Relax functions, indented as members).
  Value Run(const std::string& functions, std::vector<Value> args, bool with_kernels = true) {
    mod_ = script::ParseModule(std::string(kKernels) + "\n" + functions, "call_tir.py");
    RegisterCoreBuiltins(&builtins_);
    Interpreter interp(mod_, builtins_);
    if (with_kernels) interp.set_kernel_library(KernelLibrary::Load(PIPESPLIT_TEST_KERNELS));
    return interp.Invoke("main", std::move(args));
  }
  std::string RunError(const std::string& functions, std::vector<Value> args,
                       bool with_kernels = true) {
    try {
      Run(functions, std::move(args), with_kernels);
    } catch (const RuntimeError& e) {
      return e.what();
    }
    return "no error";
  }
  ir::IRModule mod_;
  BuiltinRegistry builtins_;
};

TEST_F(CallTirTest, SymbolicShapes) {
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        z = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((n,), dtype="float32"))
        w = R.call_tir(cls.add, (z, z), out_sinfo=R.Tensor((n,), dtype="float32"))
        return w
)",
                  {F32({3}, {1, 2, 3}), F32({3}, {0.5, 0.25, 0})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("out")), (std::vector<double>{3, 4.5, 6}));
}

// PIPESPLIT_OP_PROFILE: every compiled kernel has a row of its own ("T.<name>") beside the
// Relax ops, one call per kernel run; the table's first column fits the longest name.
TEST_F(CallTirTest, OpProfileCountsEachKernel) {
  const std::string main = R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        z = R.call_tir(cls.add, (x, y), out_sinfo=R.Tensor((n,), dtype="float32"))
        w = R.call_tir(cls.add, (z, z), out_sinfo=R.Tensor((n,), dtype="float32"))
        a = R.call_tir_inplace(cls.accumulate, (w, y), out_sinfo=R.Tensor((n,), dtype="float32"), inplace_indices=[0])
        b = R.add(a, x)
        return b
)";
  detail::ResetOpProfile();
  detail::SetOpProfileEnabled(true);
  Run(main, {F32({3}, {1, 2, 3}), F32({3}, {0.5, 0.25, 0})});
  detail::SetOpProfileEnabled(false);
  Run(main, {F32({3}, {1, 2, 3}), F32({3}, {0.5, 0.25, 0})});
  std::map<std::string, int64_t> calls;
  for (const detail::OpProfileEntry& e : detail::OpProfileSnapshot()) calls[e.op] = e.calls;
  EXPECT_EQ(calls,
            (std::map<std::string, int64_t>{{"T.accumulate", 1}, {"T.add", 2}, {"relax.add", 1}}));
  detail::ResetOpProfile();
  detail::AddOpTime("T.a_kernel_name_longer_than_the_first_column_of_the_table", 0.002);
  const std::string table = detail::FormatOpProfile();
  detail::ResetOpProfile();
  const size_t calls_at = table.find("calls");
  const size_t row = table.find("T.a_kernel_name_longer_than_the_first_column_of_the_table");
  ASSERT_NE(row, std::string::npos) << table;
  const size_t row_end = table.find('\n', row);
  ASSERT_NE(calls_at, std::string::npos);
  // "calls" is right-aligned over the calls column: both end at the same offset in their line.
  EXPECT_EQ(calls_at + 5, table.find(" 1 ", row) + 2 - row) << table;
  EXPECT_LT(table.find(" 1 ", row), row_end) << table;
}

TEST_F(CallTirTest, OutSinfoListGivesATupleAndTirVarsAreScalars) {
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tuple(R.Tensor(("n",), dtype="float32"), R.Tensor(("n",), dtype="float32")):
        n = T.int64()
        cls = Module
        t = R.call_tir(cls.scale_shift, (x,), out_sinfo=[R.Tensor((n,), dtype="float32"), R.Tensor((n,), dtype="float32")], tir_vars=R.shape([n + 1]))
        return t
)",
                  {F32({2}, {1, 2})});
  const Value::Tuple* t = out.as_tuple();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->size(), 2u);
  // k = n + 1 = 3.
  EXPECT_EQ(ToDoubleVector((*t)[0].ExpectTensor("y")), (std::vector<double>{3, 6}));
  EXPECT_EQ(ToDoubleVector((*t)[1].ExpectTensor("z")), (std::vector<double>{4, 5}));
}

TEST_F(CallTirTest, InplaceWritesIntoTheArgumentAndLeavesTheCallersTensorAlone) {
  Tensor x = F32({3}, {1, 2, 3});
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), y: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        cls = Module
        a = R.call_tir_inplace(cls.accumulate, (x, y), out_sinfo=R.Tensor((n,), dtype="float32"), inplace_indices=[0])
        return a
)",
                  {x, F32({3}, {10, 20, 30})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("a")), (std::vector<double>{11, 22, 33}));
  EXPECT_EQ(ToDoubleVector(x), (std::vector<double>{1, 2, 3}));
}

TEST_F(CallTirTest, Float16BuffersPassTheirRawStorage) {
  Tensor x = MakeTensor(DataType::Float(16), {3}, {0.5, -2, 65504});
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float16")) -> R.Tensor(("n",), dtype="float16"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.copy_f16, (x,), out_sinfo=R.Tensor((n,), dtype="float16"))
        return y
)",
                  {x});
  EXPECT_TRUE(BitwiseEqual(out.ExpectTensor("y"), x));
}

TEST_F(CallTirTest, StopLiftParamsIsTheIdentity) {
  Tensor x = F32({2}, {1, 2});
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor((2,), dtype="float32")) -> R.Tensor((2,), dtype="float32"):
        y = R.builtin.stop_lift_params(x)
        return y
)",
                  {x});
  EXPECT_TRUE(BitwiseEqual(out.ExpectTensor("y"), x));
}

TEST_F(CallTirTest, KernelErrorIsLocatedAtItsBinding) {
  try {
    Run(R"(    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.always_fails, (x,), out_sinfo=R.Tensor((3,), dtype="float32"))
        return y
)",
        {F32({3}, {1, 2, 3})});
    FAIL() << "no error";
  } catch (const ExecutionError& e) {
    EXPECT_EQ(e.function(), "main");
    EXPECT_EQ(e.binding(), "y");
    EXPECT_THAT(e.what(), HasSubstr("binding 'y' (call_tir.py:50:9): kernel 'always_fails' "
                                    "failed: always_fails: buffer A: dim 0 is 3, expected 4"));
  }
}

TEST_F(CallTirTest, KernelMissingFromTheLibraryIsNamed) {
  std::string error = RunError(R"(    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.not_built, (x,), out_sinfo=R.Tensor((3,), dtype="float32"))
        return y
)",
                               {F32({3}, {1, 2, 3})});
  EXPECT_THAT(error, HasSubstr("has no kernel 'not_built' (called by R.call_tir): it was not "
                               "built from this module"));
}

TEST_F(CallTirTest, WithoutAKernelLibraryCallTirIsNotExecutable) {
  std::string error = RunError(R"(    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        cls = Module
        y = R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((3,), dtype="float32"))
        return y
)",
                               {F32({3}, {1, 2, 3})}, /*with_kernels=*/false);
  EXPECT_THAT(error, HasSubstr("cannot execute R.call_tir of TIR kernel 'add': pipesplit does "
                               "not execute TIR"));
}

TEST_F(CallTirTest, UnknownOutputDimIsAnError) {
  std::string error = RunError(R"(    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor(dtype="float32", ndim=1):
        cls = Module
        m = T.int64()
        y = R.call_tir(cls.add, (x, x), out_sinfo=R.Tensor((m,), dtype="float32"))
        return y
)",
                               {F32({3}, {1, 2, 3})});
  EXPECT_THAT(error, HasSubstr("output 0 of kernel 'add': dim 0 of its declared shape is unknown"));
}

TEST_F(CallTirTest, DpsPackedBuiltinFillsItsOutputs) {
  builtins_.Register("test.fill_iota", [](BuiltinCall& call) -> Value {
    std::vector<TensorBuilder>& outs = call.Outputs();
    for (TensorBuilder& b : outs) {
      for (int64_t i = 0; i < b.numel(); ++i) b.data<float>()[i] = static_cast<float>(i);
    }
    return Value();
  });
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32")) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        y = R.call_dps_packed("test.fill_iota", (x,), out_sinfo=R.Tensor((n * 2,), dtype="float32"))
        return y
)",
                  {F32({2}, {7, 7})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("y")), (std::vector<double>{0, 1, 2, 3}));
}

// A memory-planned function (MLC's phase 5): kernels called destination-passing write into
// tensors viewing planned storage; vm.builtin.reshape views its argument.
constexpr const char* kPlanned = R"(    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32"), y: R.Tensor((3,), dtype="float32")) -> R.Tensor((3,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        cls = Module
        storage: R.Any = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
        a: R.Tensor((3,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([3]), R.dtype("float32"), 0)
        cls.add(x, y, a)
        b: R.Tensor((3,), dtype="float32") = R.memory.alloc_tensor(storage, OFFSET, R.shape([3]), R.dtype("float32"), 0)
        cls.add(a, a, b)
        c: R.Tensor((3,), dtype="float32") = R.call_packed("vm.builtin.reshape", b, R.shape([SHAPE]), ty_args=(R.Tensor((3,), dtype="float32"),))
        return c
)";

std::string Planned(const std::string& offset, const std::string& shape = "3") {
  std::string text = kPlanned;
  text.replace(text.find("OFFSET"), 6, offset);
  text.replace(text.find("SHAPE"), 5, shape);
  return text;
}

TEST_F(CallTirTest, MemoryPlannedKernelsWriteIntoTheirDestinations) {
  Value out = Run(Planned("12"), {F32({3}, {1, 2, 3}), F32({3}, {0.5, 0.25, 0})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("c")), (std::vector<double>{3, 4.5, 6}));
}

TEST_F(CallTirTest, MemoryPlanErrorsAreNamed) {
  const std::vector<Value> args = {F32({3}, {1, 2, 3}), F32({3}, {1, 1, 1})};
  EXPECT_THAT(RunError(Planned("16"), args),
              HasSubstr("R.memory.alloc_tensor: a float32[3] tensor at byte offset 16 does not "
                        "fit a storage of 24 bytes"));
  EXPECT_THAT(RunError(Planned("2"), args),
              HasSubstr("R.memory.alloc_tensor: a float32[3] tensor at byte offset 2"));
  EXPECT_THAT(RunError(Planned("12", "4"), args),
              HasSubstr("vm.builtin.reshape: cannot view float32[3] as [4]"));
  std::string other_device = Planned("12");
  other_device.replace(other_device.find("R.shape([24]), 0"), 16, "R.shape([24]), 1");
  EXPECT_THAT(RunError(other_device, args),
              HasSubstr("R.memory.alloc_storage: device index 1 does not exist"));
  std::string not_storage = Planned("12");
  not_storage.replace(not_storage.find("alloc_tensor(storage, 0"), 23, "alloc_tensor(x, 0");
  EXPECT_THAT(RunError(not_storage, args),
              HasSubstr("R.memory.alloc_tensor: the storage must be one of "
                        "R.memory.alloc_storage, got tensor"));
  EXPECT_THAT(RunError(Planned("12"), args, /*with_kernels=*/false),
              HasSubstr("cannot call TIR function 'add': pipesplit does not execute TIR"));
}

// A collective called with its destination last (MLC's phase 5:
// R.call_packed("runtime.disco.allreduce", x, R.shape([0]), 1, alloc)) writes its result there;
// on one worker every collective is the identity.
constexpr const char* kPlannedAllReduce = R"(    @R.function(pure=False)
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((DEST,), dtype="float32"):
        storage: R.Any = R.memory.alloc_storage(R.shape([24]), 0, R.str("global"), R.dtype("float32"))
        a: R.Tensor((DEST,), dtype="float32") = R.memory.alloc_tensor(storage, 0, R.shape([DEST]), R.dtype("float32"), 0)
        _: R.Any = R.call_packed("runtime.disco.allreduce", x, R.shape([0]), 1, aEXTRA)
        return a
)";

std::string PlannedAllReduce(const std::string& dest, const std::string& extra = "") {
  std::string text = kPlannedAllReduce;
  for (size_t at; (at = text.find("DEST")) != std::string::npos;) text.replace(at, 4, dest);
  text.replace(text.find("EXTRA"), 5, extra);
  return text;
}

TEST_F(CallTirTest, CollectivesWriteIntoAGivenDestination) {
  Value out = Run(PlannedAllReduce("3"), {F32({3}, {1, 2, 3})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("a")), (std::vector<double>{1, 2, 3}));
  EXPECT_THAT(RunError(PlannedAllReduce("2"), {F32({3}, {1, 2, 3})}),
              HasSubstr("runtime.disco.allreduce: the result is float32[3] but the destination "
                        "is float32[2]"));
  EXPECT_THAT(RunError(PlannedAllReduce("3", ", a"), {F32({3}, {1, 2, 3})}),
              HasSubstr("runtime.disco.allreduce takes 3 arguments (or one more, the "
                        "destination), got 5"));
}

TEST_F(CallTirTest, BuiltinAllocTensorIsFreshAndZeroed) {
  Value out = Run(R"(    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tensor((2, 2), dtype="float32"):
        gv: R.Tensor((2, 2), dtype="float32") = R.builtin.alloc_tensor(R.shape([2, 2]), R.dtype("float32"), 0, R.str("global"))
        return gv
)",
                  {F32({3}, {1, 2, 3})});
  EXPECT_EQ(ToDoubleVector(out.ExpectTensor("gv")), (std::vector<double>{0, 0, 0, 0}));
}

// The one tensor of a value (a staged run returns the last stage's outputs as a tuple).
Tensor Only(const Value& v) {
  std::vector<Tensor> flat;
  v.Flatten(&flat);
  EXPECT_EQ(flat.size(), 1u);
  return flat.at(0);
}

// Two stages of call_tir kernels on two thread groups sharing one library.
constexpr const char* kStaged = R"(    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), packed_params: R.Tuple(R.Tensor(("n",), dtype="float32"), R.Tensor(("n",), dtype="float32"))) -> R.Tensor(("n",), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        cls = Module
        with R.dataflow():
            w0: R.Tensor((n,), dtype="float32") = packed_params[0]
            a = R.call_tir(cls.add, (x, w0), out_sinfo=R.Tensor((n,), dtype="float32"))
            b1: R.Tensor((n,), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((n,), dtype="float32"),))
            w1: R.Tensor((n,), dtype="float32") = packed_params[1]
            c = R.call_tir(cls.scale_shift, (b1,), out_sinfo=[R.Tensor((n,), dtype="float32"), R.Tensor((n,), dtype="float32")], tir_vars=R.shape([n]))
            d = c[0]
            gv = R.call_tir(cls.add, (d, w1), out_sinfo=R.Tensor((n,), dtype="float32"))
            R.output(gv)
        return gv
)";

TEST(CallTirSessionTest, StagedRunSharesTheLibraryAndMatchesTheUnstagedRun) {
  ir::IRModule unsplit = script::ParseModule(std::string(kKernels) + "\n" + kStaged, "staged.py");
  ir::IRModule split = transform::RewritePipelineStages(unsplit);
  InMemoryWeights weights({F32({3}, {1, 2, 3}), F32({3}, {0.5, 0.25, 0.125})});
  std::vector<Value> inputs = {F32({3}, {-1, 0, 1})};
  SessionOptions options;
  options.kernels = KernelLibrary::Load(PIPESPLIT_TEST_KERNELS);
  RunResult reference = RunThreads(unsplit, "main", inputs, weights, options);
  // a = x + w0 = [0, 2, 4]; d = a * 3; gv = d + w1.
  EXPECT_EQ(ToDoubleVector(reference.output.ExpectTensor("gv")),
            (std::vector<double>{0.5, 6.25, 12.125}));
  options.num_groups = 2;
  RunResult staged = RunThreads(split, "main", inputs, weights, options);
  EXPECT_TRUE(BitwiseEqual(reference.output.ExpectTensor("gv"), Only(staged.output)));
  options.group_size = 2;
  RunResult wide = RunThreads(split, "main", inputs, weights, options);
  EXPECT_TRUE(BitwiseEqual(reference.output.ExpectTensor("gv"), Only(wide.output)));
}

}  // namespace
}  // namespace pipesplit::runtime
