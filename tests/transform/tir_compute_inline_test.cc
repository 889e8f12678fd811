// tir-compute-inline beyond its golden tests (tests/transform/golden/tir_compute_inline_*): what
// it inlines and in which order, what it refuses and why (each such function coming back as
// the same node), fixed points, and every kernel of MLC-LLM's 2026 CPU dumps.
#include "pipesplit/transform/tir_compute_inline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/support/text.h"
#include "pipesplit/transform/pass.h"
#include "tests/mlc2026_corpus_dir.h"

namespace pipesplit::transform {
namespace {

namespace fs = std::filesystem;

const fs::path kGoldenDir = fs::path(PIPESPLIT_SOURCE_DIR) / "tests/transform/golden";

ir::IRModule ParseFile(const fs::path& path) {
  std::string text, error;
  EXPECT_TRUE(ReadFile(path.string(), &text, &error)) << error;
  return script::ParseModule(text, path.string());
}

std::vector<std::string> Refusals(const ComputeInlineReport& report) {
  std::vector<std::string> out;
  for (const ComputeInlineReport::Refusal& r : report.refused) {
    out.push_back(r.block + ": " + r.reason);
  }
  return out;
}

// The producers each golden kernel inlines, in order, and the blocks left with their reasons.
struct Expectation {
  std::vector<std::string> inlined;
  std::vector<std::string> refused;
};

TEST(TirComputeInline, InlinesChainsInProgramOrderUpToAFixedPoint) {
  const std::map<std::string, Expectation> expected = {
      {"fused_dequantize_take1", {{"compute"}, {}}},
      {"fused_dequantize2_fused_NT_matmul1_add",
       {{"compute", "dequantize"}, {"NT_matmul: a reduction (T.init)"}}},
      {"rms_norm",
       {{"T_cast", "T_multiply", "rsqrt", "T_cast_1", "T_rms_norm"},
        {"T_multiply_red: a reduction (T.init)"}}},
      {"fused_split_silu_multiply",
       {{"T_split_sections", "T_split_sections_1", "compute", "T_multiply"}, {}}},
      {"row_sum", {{"B"}, {}}},
      {"transposed_nest", {{"B"}, {}}},
  };
  size_t seen = 0;
  for (const char* name : {"dequantize_take", "q4_matmul", "rms_norm", "silu_multiply", "nests"}) {
    ir::IRModule mod =
        ParseFile(kGoldenDir / ("tir_compute_inline_" + std::string(name) + ".input.py"));
    for (const ir::IRModule::Member& m : mod.members()) {
      auto func = ir::Cast<ir::PrimFuncNode>(m.func);
      ASSERT_NE(func, nullptr);
      const Expectation& want = expected.at(func->name());
      ++seen;
      ComputeInlineReport report;
      ir::PrimFunc out = ComputeInline(func, &report);
      EXPECT_NE(out, func) << func->name();
      EXPECT_EQ(report.inlined, want.inlined) << func->name();
      EXPECT_EQ(Refusals(report), want.refused) << func->name();
      ComputeInlineReport again;
      EXPECT_EQ(ComputeInline(out, &again), out) << func->name() << " is not a fixed point";
      EXPECT_TRUE(again.inlined.empty());
      EXPECT_EQ(Refusals(again), want.refused) << func->name();
    }
  }
  EXPECT_EQ(seen, expected.size());
}

TEST(TirComputeInline, RefusedProducersLeaveTheSameNodes) {
  const fs::path path = kGoldenDir / "tir_compute_inline_refusals.input.py";
  ir::IRModule mod = ParseFile(path);
  const std::map<std::string, std::vector<std::string>> expected = {
      {"param_buffer", {}},
      {"two_writers", {"B: another statement writes B", "B_again: an earlier statement uses B"}},
      {"predicate", {"B: it has a predicate (T.where)"}},
      {"reduction", {"S: a reduction (T.init)"}},
      {"written_after", {"B: a later statement writes X"}},
      {"split_loops", {"B: iter var v is not bound to a loop of its own"}},
      {"parallel_loop", {"B: its loop i is not serial"}},
      {"partial_producer", {"B: iter var v_i does not span dim 0 of B"}},
      {"may_alias", {"B: a later statement writes C, which may alias an input"}},
      {"index_dtype", {"B: a load of B has indices of another dtype"}},
  };
  ASSERT_EQ(mod.members().size(), expected.size());
  for (const ir::IRModule::Member& m : mod.members()) {
    auto func = ir::Cast<ir::PrimFuncNode>(m.func);
    ASSERT_NE(func, nullptr);
    ComputeInlineReport report;
    EXPECT_EQ(ComputeInline(func, &report), func) << func->name();
    EXPECT_TRUE(report.inlined.empty()) << func->name();
    EXPECT_EQ(Refusals(report), expected.at(func->name())) << func->name();
  }
  // Through the registry: every member of the module is the node it was.
  PassContext ctx;
  ir::IRModule out = ParsePipeline("tir-compute-inline")->Run(mod, ctx);
  ASSERT_EQ(out.members().size(), mod.members().size());
  for (size_t i = 0; i < mod.members().size(); ++i) {
    EXPECT_EQ(out.members()[i].func, mod.members()[i].func) << mod.members()[i].gvar->name_hint();
  }
}

// Every PrimFunc of every CPU dump of phases 4 and 5: the result is well-formed, a fixed point,
// and the Relax functions are left alone. Prints what was inlined per dump.
TEST(TirComputeInline, Mlc2026CpuDumps) {
  const fs::path corpus = testing_corpus::Mlc2026Dir();
  if (corpus.empty()) GTEST_SKIP() << "the MLC-LLM 2026 corpus is not here";
  std::vector<fs::path> dumps;
  for (const auto& model : fs::directory_iterator(corpus)) {
    if (!model.is_directory()) continue;
    for (const auto& target : fs::directory_iterator(model.path())) {
      if (target.path().filename().string().rfind("cpu-", 0) != 0) continue;
      for (const char* phase : {"debug-phase4.py", "debug-phase5.py"}) {
        if (fs::exists(target.path() / phase)) dumps.push_back(target.path() / phase);
      }
    }
  }
  std::sort(dumps.begin(), dumps.end());
  ASSERT_FALSE(dumps.empty());
  int total_inlined = 0;
  for (const fs::path& dump : dumps) {
    SCOPED_TRACE(dump.string());
    ir::IRModule mod = ParseFile(dump);
    ir::IRModule kernels_before, kernels_after;
    int kernels = 0, changed = 0, inlined = 0;
    std::map<std::string, int> reasons;
    PassContext ctx;
    ir::IRModule out = ParsePipeline("tir-compute-inline")->Run(mod, ctx);
    for (size_t i = 0; i < mod.members().size(); ++i) {
      const ir::IRModule::Member& m = mod.members()[i];
      auto func = ir::Cast<ir::PrimFuncNode>(m.func);
      if (func == nullptr) {
        EXPECT_EQ(out.members()[i].func, m.func) << "a Relax function changed";
        continue;
      }
      ++kernels;
      ComputeInlineReport report;
      ir::PrimFunc result = ComputeInline(func, &report);
      // The pass did the same (a run of its own: equal, not the same nodes when it changed).
      EXPECT_EQ(out.members()[i].func == m.func, result == func) << func->name();
      EXPECT_TRUE(analysis::StructuralEqual(out.members()[i].func, result)) << func->name();
      for (const ComputeInlineReport::Refusal& r : report.refused) ++reasons[r.reason];
      EXPECT_EQ(ComputeInline(result), result) << func->name() << " is not a fixed point";
      kernels_before.Add(m.gvar, func);
      kernels_after.Add(m.gvar, result);
      if (result == func) continue;
      ++changed;
      inlined += static_cast<int>(report.inlined.size());
    }
    // The kernels' TIR is well-formed before and after (the Relax functions are not checked:
    // phase 5 has builtins that invariant 7 does not know).
    EXPECT_TRUE(analysis::CheckWellFormed(kernels_before).empty());
    std::vector<Diagnostic> problems = analysis::CheckWellFormed(kernels_after);
    EXPECT_TRUE(problems.empty()) << problems.front().message;
    std::cout << fs::relative(dump, corpus).string() << ": " << changed << " of " << kernels
              << " kernels changed, " << inlined << " blocks inlined\n";
    for (const auto& [reason, count] : reasons) {
      std::cout << "    stayed " << count << "x: " << reason << "\n";
    }
    total_inlined += inlined;
  }
  EXPECT_GT(total_inlined, 0);
}

}  // namespace
}  // namespace pipesplit::transform
