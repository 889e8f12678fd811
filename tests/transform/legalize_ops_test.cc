// legalize-ops beyond the golden files: the legalized Llama example is fully lowered,
// well-formed, round-trips through the printer and compiles; and every golden input computes
// the same values legalized (its kernels compiled and run) as the runtime's reference kernels
// compute on the high-level ops (every output element within 1e-5, relative, on random inputs).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <random>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/functor.h"
#include "pipesplit/runtime/exec/interpreter.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/models/llama.h"

namespace pipesplit {
namespace {

namespace fs = std::filesystem;

std::string CacheDir() { return std::string(PIPESPLIT_BINARY_DIR) + "/tests/transform/kernels"; }

ir::IRModule Legalize(const ir::IRModule& mod) {
  transform::PassContext ctx;
  ctx.verify_each = true;
  return transform::ParsePipeline("legalize-ops")->Run(mod, ctx);
}

// The names of the ops called in the Relax functions of `mod`.
std::vector<std::string> OpsCalled(const ir::IRModule& mod) {
  struct Finder : ir::ExprVisitor {
    std::vector<std::string> ops;
    void VisitExpr_(const ir::CallNode& call) override {
      if (call.op_node() != nullptr) ops.push_back(call.op_node()->name());
      ExprVisitor::VisitExpr_(call);
    }
  } finder;
  for (const auto& member : mod.members()) {
    if (ir::As<ir::FunctionNode>(member.func) != nullptr) finder.VisitExpr(member.func);
  }
  return finder.ops;
}

TEST(LegalizeOpsTest, LlamaExampleIsFullyLoweredWellFormedAndCompiles) {
  models::LlamaConfig config;
  config.layers = 2;
  config.hidden = 16;
  config.heads = 2;
  config.ffn = 32;
  config.vocab = 32;
  config.seq = 4;
  models::LlamaExample example = models::GenerateLlamaExample(config);
  ir::IRModule lowered = Legalize(script::ParseModule(example.module_text, "llama.py"));
  // Only call_tir and the stage-boundary marker remain.
  for (const std::string& op : OpsCalled(lowered)) {
    EXPECT_TRUE(op == "relax.call_tir" || op == "relax.call_pure_packed") << op;
  }
  int kernels = 0;
  for (const auto& member : lowered.members()) {
    kernels += ir::As<ir::PrimFuncNode>(member.func) != nullptr;
  }
  // 14 op kinds, several shapes each, shared across layers: far fewer kernels than calls.
  EXPECT_GE(kernels, 14);
  EXPECT_LT(kernels, static_cast<int>(OpsCalled(lowered).size()));
  EXPECT_TRUE(analysis::CheckWellFormed(lowered).empty());
  std::string printed = script::PrintModule(lowered);
  EXPECT_EQ(script::PrintModule(script::ParseModule(printed, "printed.py")), printed);
  codegen::BuildOptions options;
  options.cache_dir = CacheDir();
  std::string library = codegen::BuildKernelLibrary(lowered, options);
  EXPECT_TRUE(fs::exists(library));
  EXPECT_EQ(runtime::KernelLibrary::Load(library)->names().size(), static_cast<size_t>(kernels));
}

TEST(LegalizeOpsTest, ModuleWithoutLoweredOpsIsUnchanged) {
  const char* text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor((), dtype="float32"):
        s = R.sum(x)
        return s
)";
  ir::IRModule mod = script::ParseModule(text, "sum.py");
  ir::IRModule out = Legalize(mod);
  EXPECT_EQ(out.members().size(), 1u);
  EXPECT_EQ(script::PrintModule(out), script::PrintModule(mod));
}

// Random arguments for main's tensor params (integer tensors get small indices).
std::vector<runtime::Value> RandomArgs(const ir::Function& main, std::mt19937* rng) {
  std::vector<runtime::Value> args;
  for (const ir::Var& param : main->params()) {
    const auto* t = ir::As<ir::TensorSInfoNode>(param->struct_info());
    EXPECT_TRUE(t != nullptr && t->shape());
    runtime::Shape shape;
    int64_t n = 1;
    for (const ir::PrimExpr& d : *t->shape()) {
      shape.push_back(*ir::AsConstInt(d));
      n *= shape.back();
    }
    if (t->dtype().is_integer()) {
      std::vector<int64_t> values(n);
      for (int64_t& v : values) v = std::uniform_int_distribution<int64_t>(0, 3)(*rng);
      args.emplace_back(runtime::MakeIntTensor(t->dtype(), shape, values));
    } else {
      std::vector<double> values(n);
      for (double& v : values) v = std::uniform_real_distribution<double>(-2, 2)(*rng);
      args.emplace_back(runtime::MakeTensor(t->dtype(), shape, values));
    }
  }
  return args;
}

class LegalizedNumericsTest : public testing::TestWithParam<std::string> {};

TEST_P(LegalizedNumericsTest, MatchesTheReferenceKernels) {
  std::string text, error;
  fs::path path = fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden" /
                  ("legalize_ops_" + GetParam() + ".input.py");
  ASSERT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  ir::IRModule high = script::ParseModule(text, path.string());
  ir::IRModule low = Legalize(high);
  codegen::BuildOptions options;
  options.cache_dir = CacheDir();
  options.check_bounds = true;
  auto kernels = runtime::KernelLibrary::Load(codegen::BuildKernelLibrary(low, options));
  runtime::BuiltinRegistry builtins;
  runtime::RegisterCoreBuiltins(&builtins);
  std::mt19937 rng(7);
  std::vector<runtime::Value> args = RandomArgs(high.LookupFunction("main"), &rng);
  runtime::Interpreter reference(high, builtins);
  runtime::Interpreter lowered(low, builtins, kernels);
  runtime::Value want = reference.Invoke("main", args);
  runtime::Value got = lowered.Invoke("main", args);
  // Every output tensor, element by element: |got - want| <= 1e-5 * (1 + |want|).
  std::vector<runtime::Value> wants = {want}, gots = {got};
  if (want.as_tuple() != nullptr) {
    ASSERT_NE(got.as_tuple(), nullptr);
    wants = *want.as_tuple();
    gots = *got.as_tuple();
  }
  ASSERT_EQ(gots.size(), wants.size());
  for (size_t t = 0; t < wants.size(); ++t) {
    std::vector<double> w = runtime::ToDoubleVector(wants[t].ExpectTensor("reference"));
    std::vector<double> g = runtime::ToDoubleVector(gots[t].ExpectTensor("lowered"));
    ASSERT_EQ(g.size(), w.size());
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_LE(std::fabs(g[i] - w[i]), 1e-5 * (1 + std::fabs(w[i])))
          << "output " << t << " element " << i << ": " << g[i] << " vs " << w[i];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, LegalizedNumericsTest,
                         testing::Values("elementwise", "family", "manipulate", "nn"));

}  // namespace
}  // namespace pipesplit
