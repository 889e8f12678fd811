// The launch API from C++, without the CLI: the same function drives a module through
// whichever Launcher it is given. ctest runs it twice: `launcher_test threads` (workers as
// threads) and `mpirun -np 2 launcher_test mpi` (one worker per rank). Each checks that
//   - the launcher forms the groups launch.h promises (and refuses those it cannot form);
//   - two runs in a row on the same launcher give, on the process that holds the outputs,
//     every micro-batch's output bit for bit equal to its own unsplit run, and a trace with
//     every group's slices; each group loads only the weight its stage reads;
//   - a run whose inputs do not fit fails on every worker with the same WorkerError.
// Exit status 0 when every check passed (on every rank).
#include <cstdio>
#include <string>
#include <vector>

#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"

namespace {

using namespace pipesplit;

constexpr const char* kTwoStages = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 8), dtype="float32"), packed_params: R.Tuple(R.Tensor((8, 8), dtype="float32"), R.Tensor((8, 8), dtype="float32"))) -> R.Tensor((2, 8), dtype="float32"):
        R.func_attr({"num_input": 1, "pipeline_parallel_stages": 2})
        with R.dataflow():
            w0: R.Tensor((8, 8), dtype="float32") = packed_params[0]
            a: R.Tensor((2, 8), dtype="float32") = R.matmul(x, w0)
            b: R.Tensor((2, 8), dtype="float32") = R.nn.silu(a)
            c: R.Tensor((2, 8), dtype="float32") = R.call_pure_packed("mlc.pipeline_parallel_stage_boundary", b, sinfo_args=(R.Tensor((2, 8), dtype="float32"),))
            w1: R.Tensor((8, 8), dtype="float32") = packed_params[1]
            d: R.Tensor((2, 8), dtype="float32") = R.matmul(c, w1)
            gv: R.Tensor((2, 8), dtype="float32") = R.exp(d)
            R.output(gv)
        return gv
)";

int failures = 0;

void Check(bool ok, const std::string& what) {
  if (!ok) {
    std::fprintf(stderr, "FAILED: %s\n", what.c_str());
    ++failures;
  }
}

runtime::InMemoryWeights Weights() {
  std::vector<runtime::Tensor> out;
  for (int k = 0; k < 2; ++k) {
    std::vector<double> v(64);
    for (int i = 0; i < 64; ++i) v[i] = 0.03 * ((i * 7 + k * 3) % 11) - 0.1;
    out.push_back(runtime::MakeTensor(DataType::Float(32), {8, 8}, v));
  }
  return runtime::InMemoryWeights(std::move(out));
}

std::vector<std::vector<runtime::Value>> Microbatches(int m, double shift) {
  std::vector<std::vector<runtime::Value>> out;
  for (int k = 0; k < m; ++k) {
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[i] = 0.37 * i - 1.1 * k + shift;
    out.push_back({runtime::Value(runtime::MakeTensor(DataType::Float(32), {2, 8}, v))});
  }
  return out;
}

runtime::Tensor Only(const runtime::Value& v) {
  std::vector<runtime::Tensor> flat;
  v.Flatten(&flat);
  return flat.at(0);
}

void CheckGroups(const runtime::Launcher& launcher, bool mpi) {
  runtime::GroupShape shape = launcher.FormGroups({}, 2);
  Check(shape.num_groups == 2 && shape.group_size == 1, "two stages form 2 groups of 1");
  if (!mpi) return;
  shape = launcher.FormGroups({0, 2}, 2);
  Check(shape.num_groups == 1 && shape.group_size == 2, "2 ranks in groups of 2 form 1 group");
  try {
    launcher.FormGroups({3, 0}, 2);
    Check(false, "2 ranks cannot form 3 groups");
  } catch (const runtime::RuntimeError& e) {
    Check(std::string(e.what()) == "2 MPI ranks cannot form 3 equal groups",
          std::string("message: ") + e.what());
  }
  try {
    launcher.FormGroups({2, 2}, 2);
    Check(false, "2 groups of 2 do not fit 2 ranks");
  } catch (const runtime::RuntimeError& e) {
    Check(std::string(e.what()) == "2 groups of 2 need 4 MPI ranks, not 2",
          std::string("message: ") + e.what());
  }
}

// After Shutdown, a run is an error, not a hang or a crash.
void CheckRunAfterShutdown(runtime::Launcher& launcher, const ir::IRModule& split) {
  if (launcher.name() != "mpi") return;
  runtime::InMemoryWeights weights = Weights();
  runtime::SessionOptions options;
  options.num_groups = 2;
  try {
    launcher.Run(split, "main", Microbatches(1, 0), weights, options);
    Check(false, "a run after shutdown fails");
  } catch (const runtime::RuntimeError& e) {
    Check(std::string(e.what()) == "the MPI launcher was shut down",
          std::string("message: ") + e.what());
  }
}

// One run of 3 micro-batches: outputs equal their unsplit runs, the trace covers both groups.
void CheckRun(runtime::Launcher& launcher, const ir::IRModule& unsplit, const ir::IRModule& split,
              double shift) {
  runtime::InMemoryWeights weights = Weights();
  runtime::SessionOptions options;
  runtime::GroupShape shape = launcher.FormGroups({}, 2);
  options.num_groups = shape.num_groups;
  options.group_size = shape.group_size;
  options.num_microbatches = 3;
  runtime::RunResult result = launcher.Run(split, "main", Microbatches(3, shift), weights, options);
  for (const runtime::WorkerReport& r : result.workers) {
    Check(r.weight_indices == std::vector<int64_t>{r.group}, "each group loads its one weight");
  }
  Check(result.workers.size() == (launcher.name() == "threads" ? 2u : 1u), "worker reports");
  if (!result.holds_outputs) return;
  Check(result.outputs.size() == 3, "three outputs");
  std::unique_ptr<runtime::Launcher> reference = runtime::MakeThreadLauncher();
  std::vector<std::vector<runtime::Value>> inputs = Microbatches(3, shift);
  for (size_t k = 0; k < inputs.size() && k < result.outputs.size(); ++k) {
    runtime::RunResult alone =
        reference->Run(unsplit, "main", {inputs[k]}, weights, runtime::SessionOptions{});
    Check(runtime::BitwiseEqual(Only(alone.output), Only(result.outputs[k])),
          "micro-batch " + std::to_string(k) + " equals its unsplit run");
  }
  Check(result.trace.num_groups == 2 && result.trace.group_functions.size() == 2,
        "the trace has both groups");
  int computes[2] = {0, 0};
  for (const runtime::TraceSlice& s : result.trace.slices) {
    if (s.kind == runtime::TraceSlice::Kind::kCompute && s.group >= 0 && s.group < 2) {
      ++computes[s.group];
    }
  }
  Check(computes[0] == 3 && computes[1] == 3, "the trace has every group's computes");
}

void CheckBadInputs(runtime::Launcher& launcher, const ir::IRModule& split) {
  runtime::InMemoryWeights weights = Weights();
  runtime::SessionOptions options;
  options.num_groups = 2;
  std::vector<std::vector<runtime::Value>> inputs = Microbatches(1, 0);
  inputs[0].push_back(inputs[0][0]);
  try {
    launcher.Run(split, "main", inputs, weights, options);
    Check(false, "two inputs for one parameter fail");
  } catch (const runtime::WorkerError& e) {
    Check(std::string(e.what()).find("failed in 'main': 'main' takes 1 inputs, got 2") !=
              std::string::npos,
          std::string("message: ") + e.what());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "";
  if (kind != "threads" && kind != "mpi") {
    std::fprintf(stderr, "usage: launcher_test threads|mpi\n");
    return 2;
  }
  ir::IRModule unsplit = script::ParseModule(kTwoStages, "two.py");
  ir::IRModule split = transform::RewritePipelineStages(unsplit);
  std::unique_ptr<runtime::Launcher> launcher =
      kind == "mpi" ? runtime::MakeMpiLauncher() : runtime::MakeThreadLauncher();
  Check(launcher->name() == kind, "launcher name");
  CheckGroups(*launcher, kind == "mpi");
  CheckRun(*launcher, unsplit, split, 0.0);
  CheckRun(*launcher, unsplit, split, 0.5);  // the launcher's workers serve a second run
  CheckBadInputs(*launcher, split);
  if (std::optional<std::string> lost = launcher->Shutdown()) {
    Check(false, "shutdown: " + *lost);
  }
  CheckRunAfterShutdown(*launcher, split);
  if (failures == 0) std::printf("%s launcher: all checks passed\n", kind.c_str());
  return failures == 0 ? 0 : 1;
}
