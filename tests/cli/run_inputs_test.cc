// `run` / `verify-split` inputs that are not plain tensors (shape parameters, `--arg
// PARAM=@FUNC`, `--metadata` constants) and `example random-inputs`, on a tiny module that uses
// the KV-cache builtins the MLC dumps call; every user error exits 1 with a one-line message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/tensor/tensor.h"
#include "tests/cli/cli_test_util.h"

namespace pipesplit::testing_cli {
namespace {

using ::testing::HasSubstr;
namespace rt = pipesplit::runtime;

// The KV-cache calls are R.call_pure_packed: the pass needs a dataflow block, where the
// well-formedness check rejects impure calls.
// `step` adds a weight to x, appends the sum to a KV cache made by `create_cache` (from a
// metadata constant, as the MLC dumps do) and returns the cache's n rows summed; `ids` and
// `packed_params[1]` only exercise the integer generators. Two stages: the cache lives in the
// second.
constexpr const char* kModule = R"(# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def create_cache() -> R.Tuple(R.Object):
        with R.dataflow():
            c: R.Object = R.call_pure_packed("vm.builtin.attention_kv_cache_create", metadata["relax.expr.Constant"][0], R.shape([4, 2]), R.prim_value(0), sinfo_args=(R.Object,))
            gv: R.Tuple(R.Object) = (c,)
            R.output(gv)
        return gv

    @R.function
    def step(x: R.Tensor((1, 2), dtype="float32"), ids: R.Tensor((3,), dtype="int32"), seq_len: R.Shape(["n"]), cache: R.Tuple(R.Object), packed_params: R.Tuple(R.Tensor((2,), dtype="float32"), R.Tensor((2, 3), dtype="uint32"))) -> R.Tensor((2,), dtype="float32"):
        n = T.int64()
        R.func_attr({"num_input": 4, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w: R.Tensor((2,), dtype="float32") = packed_params[0]
            a: R.Tensor((1, 2), dtype="float32") = R.add(x, w)
            b: R.Tensor((1, 2), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", a, sinfo_args=(R.Tensor((1, 2), dtype="float32"),))
            c0: R.Object = cache[0]
            c1: R.Object = R.call_pure_packed("vm.builtin.attention_kv_cache_append", c0, b, sinfo_args=(R.Object,))
            v: R.Tensor((n, 2), dtype="float32") = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([n, 2]), sinfo_args=(R.Tensor((n, 2), dtype="float32"),))
            gv: R.Tensor((2,), dtype="float32") = R.sum(v, axis=[0], keepdims=False)
            R.output(gv)
        return gv
)";

void Write(const std::string& path, const std::vector<rt::NamedTensor>& tensors) {
  rt::WriteSafetensors(path, tensors);
}

class RunInputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ScratchDir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    WriteText(dir_ / "m.py", kModule);
    Write((dir_ / "meta.safetensors").string(),
          {{"relax.expr.Constant.0", rt::MakeTensor(DataType::Float(32), {1, 2}, {0.0, 0.0})}});
  }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  Result Generate(const std::string& extra = "--assume n=1") {
    return Pipesplit("example random-inputs " + Path("m.py") + " --entry step --seed 7 " + extra +
                     " -o " + dir_.string());
  }
  // `run` of step with the generated files, plus `extra`.
  Result Run(const std::string& extra) {
    return Pipesplit("run " + Path("m.py") + " --entry step --params " +
                     Path("params.safetensors") + " --inputs " + Path("inputs.safetensors") +
                     " -o " + Path("out.safetensors") + " " + extra);
  }
  std::filesystem::path dir_;
};

TEST_F(RunInputsTest, RandomInputsCoverTensorsShapesAndPackedParamsWithinTheirRanges) {
  Result r = Generate();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("parameter 'cache' is not a tensor or shape"));
  rt::SafetensorsFile inputs = rt::SafetensorsFile::Open(Path("inputs.safetensors"));
  EXPECT_EQ(inputs.names(), (std::vector<std::string>{"x", "ids", "seq_len"}));
  EXPECT_EQ(rt::ToInt64Vector(inputs.Get("seq_len")), (std::vector<int64_t>{1}));
  EXPECT_EQ(inputs.Get("seq_len").dtype(), DataType::Int(64));
  for (int64_t id : rt::ToInt64Vector(inputs.Get("ids"))) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 8);
  }
  for (double v : rt::ToDoubleVector(inputs.Get("x"))) {
    EXPECT_GE(v, -0.1);
    EXPECT_LT(v, 0.1);
  }
  rt::SafetensorsFile params = rt::SafetensorsFile::Open(Path("params.safetensors"));
  EXPECT_EQ(params.names(), (std::vector<std::string>{"param_0", "param_1"}));
  EXPECT_EQ(params.Get("param_1").dtype(), DataType::UInt(32));
  EXPECT_EQ(params.Get("param_1").shape(), (rt::Shape{2, 3}));
  // Random bits: six uint32 draws are not all below 2^16.
  int64_t high = 0;
  for (int64_t v : rt::ToInt64Vector(params.Get("param_1"))) high += v >= (int64_t{1} << 16);
  EXPECT_GT(high, 0);
  // The seed decides the data.
  // A copy: the file is rewritten below.
  std::vector<double> first = rt::ToDoubleVector(params.Get("param_0"));
  ASSERT_EQ(Generate("--assume n=1").exit_code, 0);
  EXPECT_EQ(first, rt::ToDoubleVector(
                       rt::SafetensorsFile::Open(Path("params.safetensors")).Get("param_0")));
}

TEST_F(RunInputsTest, RunsWithACacheFromAFunctionAndAMetadataConstant) {
  ASSERT_EQ(Generate().exit_code, 0);
  Result r = Run("--arg cache=@create_cache --metadata " + Path("meta.safetensors"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // One row appended (n = 1): the output is x + w.
  std::vector<double> x =
      rt::ToDoubleVector(rt::SafetensorsFile::Open(Path("inputs.safetensors")).Get("x"));
  std::vector<double> w =
      rt::ToDoubleVector(rt::SafetensorsFile::Open(Path("params.safetensors")).Get("param_0"));
  std::vector<double> out =
      rt::ToDoubleVector(rt::SafetensorsFile::Open(Path("out.safetensors")).Get("output_0"));
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(out[i], static_cast<double>(static_cast<float>(x[i]) + static_cast<float>(w[i])));
  }
}

TEST_F(RunInputsTest, VerifySplitMakesAFreshCacheForEachRun) {
  ASSERT_EQ(Generate().exit_code, 0);
  // A cache shared by both runs would hold 2 rows in the second, and view [1, 2] would fail.
  Result r = Pipesplit("verify-split " + Path("m.py") + " --entry step --params " +
                       Path("params.safetensors") + " --inputs " + Path("inputs.safetensors") +
                       " --arg cache=@create_cache --metadata " + Path("meta.safetensors"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("verdict: bit-identical"));
}

TEST_F(RunInputsTest, AMissingMetadataConstantNamesTheIndexAndTheFlag) {
  ASSERT_EQ(Generate().exit_code, 0);
  Result r = Run("--arg cache=@create_cache");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("metadata[\"relax.expr.Constant\"][0] is not available"));
  EXPECT_THAT(r.output, HasSubstr("'relax.expr.Constant.0' of a --metadata file"));
}

TEST_F(RunInputsTest, AMetadataTensorWithAnotherNameIsAnError) {
  ASSERT_EQ(Generate().exit_code, 0);
  for (const char* name : {"weights.0", "relax.expr.Constant.x", "relax.expr.Constant."}) {
    Write(Path("bad.safetensors"), {{name, rt::MakeTensor(DataType::Float(32), {1}, {0.0})}});
    Result r = Run("--arg cache=@create_cache --metadata " + Path("bad.safetensors"));
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_THAT(r.output, HasSubstr("tensor '" + std::string(name) +
                                    "' is not a metadata constant (expected "
                                    "relax.expr.Constant.<index>)"));
  }
}

TEST_F(RunInputsTest, ArgErrorsNameTheParameterAndTheFunction) {
  ASSERT_EQ(Generate().exit_code, 0);
  const std::string meta = " --metadata " + Path("meta.safetensors");
  struct Case {
    std::string args, message;
  } cases[] = {
      {"--arg cache", "--arg 'cache': expected PARAM=@FUNC"},
      {"--arg cache=create_cache", "--arg 'cache=create_cache': expected PARAM=@FUNC"},
      {"--arg cache=@", "--arg 'cache=@': expected PARAM=@FUNC"},
      {"--arg cache=@nope", "--arg cache=@nope: the module has no Relax function 'nope'"},
      {"--arg cache=@step",
       "--arg cache=@step: 'step' takes 5 parameters; --arg calls only functions without "
       "parameters"},
      {"--arg cache=@create_cache --arg bogus=@create_cache",
       "--arg bogus=@create_cache: 'step' has no input parameter 'bogus'"},
      {"--arg cache=@create_cache --arg packed_params=@create_cache",
       "--arg packed_params=@create_cache: 'packed_params' of 'step' comes from --params"},
      {"--arg cache=@create_cache --arg cache=@create_cache",
       "--arg given twice for parameter 'cache'"},
      {"--arg x=@create_cache --arg cache=@create_cache",
       "parameter 'x' of 'step' is given both by --arg and by"},
      {"", "no tensor named 'cache' for parameter 'cache' of 'step'"},
  };
  for (const Case& c : cases) {
    Result r = Run(c.args + meta);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.args;
  }
}

TEST_F(RunInputsTest, AShapeParameterMustBeA1DInt64Tensor) {
  ASSERT_EQ(Generate().exit_code, 0);
  rt::SafetensorsFile inputs = rt::SafetensorsFile::Open(Path("inputs.safetensors"));
  // A new file: the tensors read above map inputs.safetensors.
  Write(Path("shape.safetensors"), {{"x", inputs.Get("x")},
                                    {"ids", inputs.Get("ids")},
                                    {"seq_len", rt::MakeIntTensor(DataType::Int(32), {1}, {1})}});
  Result r =
      Pipesplit("run " + Path("m.py") + " --entry step --params " + Path("params.safetensors") +
                " --inputs " + Path("shape.safetensors") + " -o " + Path("out.safetensors") +
                " --arg cache=@create_cache --metadata " + Path("meta.safetensors"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("tensor 'seq_len' for shape parameter 'seq_len' must be a 1-D "
                                  "int64 tensor, got"));
}

TEST_F(RunInputsTest, RandomInputsErrors) {
  struct Case {
    std::string args, message;
  } cases[] = {
      {"", "parameter 'seq_len' has the symbolic dim 'n': give its value with --assume n=VALUE"},
      {"--assume n=1 --assume m=2",
       "--assume m=2: no parameter of 'step' has the symbolic var 'm'"},
      {"--assume n", "--assume 'n': expected VAR=VALUE with VALUE >= 0"},
      {"--assume n=-1", "--assume 'n=-1': expected VAR=VALUE with VALUE >= 0"},
      {"--assume n=1x", "--assume 'n=1x': expected VAR=VALUE with VALUE >= 0"},
  };
  for (const Case& c : cases) {
    Result r = Generate(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.output;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.args;
  }
  Result r =
      Pipesplit("example random-inputs " + Path("m.py") + " --entry nope -o " + dir_.string());
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_THAT(r.output, HasSubstr("the module has no Relax function 'nope'"));
}

}  // namespace
}  // namespace pipesplit::testing_cli
