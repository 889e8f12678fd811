// pipesplit run / verify-split: execute a module on worker groups.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/exec/trace.h"
#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/runtime/io/safetensors.h"
#include "pipesplit/runtime/io/weights.h"
#include "pipesplit/runtime/kernels/linalg.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/cli/cli_common.h"
#include "src/cli/run_inputs.h"
#include "src/cli/weight_args.h"

namespace pipesplit::cli {
namespace {

// Micro-batching, cores and pictures of a run (--microbatches ... --timeline).
struct PipelineArgs {
  int microbatches = 0;  // 0: one, with unsuffixed input and output names
  int max_in_flight = 2;
  int threads_per_group = 0;  // 0: cores / groups for the kernels, OpenBLAS left at 1
  std::string trace;
  std::string timeline;
  int num_microbatches() const { return std::max(microbatches, 1); }
};

void AddPipelineOptions(CLI::App* cmd, PipelineArgs* args) {
  cmd->add_option("--microbatches", args->microbatches,
                  "independent requests pipelined through the groups; inputs <param>.<k>, "
                  "outputs output_<i>.<k> (k = 0..M-1)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--max-in-flight", args->max_in_flight,
                  "micro-batches sent but not yet received per link (default: 2)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--threads-per-group", args->threads_per_group,
                  "threads of each group for OpenBLAS and the kernels (default: cores / groups "
                  "for the kernels, 1 for OpenBLAS, whose results depend on its thread count)")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--trace", args->trace,
                  "write the run's timeline in Chrome trace event format (JSON; Perfetto)");
  cmd->add_option("--timeline", args->timeline, "write the run's timeline as an SVG Gantt chart");
}

void ApplyPipelineArgs(const PipelineArgs& args, runtime::SessionOptions* options) {
  options->num_microbatches = args.num_microbatches();
  options->max_in_flight = args.max_in_flight;
  ApplyThreadsPerGroup(args.threads_per_group, options);
}

void WriteTextFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) throw runtime::RuntimeError("cannot write " + path);
}

// The summary line after a multi-group run, and the trace and timeline files when asked.
void ReportTrace(const PipelineArgs& args, const runtime::RunTrace& trace) {
  if (trace.num_groups > 1) {
    std::printf("pipeline: %s\n", runtime::FormatSummary(trace, runtime::Summarize(trace)).c_str());
  }
  if (!args.trace.empty()) {
    WriteTextFile(args.trace, runtime::ChromeTraceJson(trace));
    std::printf("wrote trace to %s\n", args.trace.c_str());
  }
  if (!args.timeline.empty()) {
    WriteTextFile(args.timeline, runtime::TimelineSvg(trace));
    std::printf("wrote timeline to %s\n", args.timeline.c_str());
  }
}

struct RunArgs {
  std::string module;
  std::string entry = "main";
  WeightArgs weights;
  InputOptions inputs;
  int groups = 0;      // 0: as many as the module has stages
  int group_size = 0;  // 0: 1 on threads; under MPI, the ranks divided among the groups
  std::string transport = "threads";
  double timeout = 60;
  std::string output;
  KernelOptions kernels;
  PipelineArgs pipeline;
  // verify-split: the same model unsharded, compared within `tolerance` (max abs diff).
  std::string unsharded;
  double tolerance = 1e-5;
};

void AddCommonRunOptions(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("module", args->module, "TVMScript module")->required();
  cmd->add_option("--entry", args->entry, "function to run (default: main)");
  AddWeightOptions(cmd, &args->weights);
  AddInputOptions(cmd, &args->inputs);
  cmd->add_option("--groups", args->groups, "worker groups (default: the module's stages)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--group-size", args->group_size,
                  "workers per group (default: the module's tensor_parallel_shards, else 1; "
                  "under MPI, the ranks divided among the groups)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--timeout", args->timeout,
                  "seconds a receive waits for its send before failing (default: 60)")
      ->check(CLI::PositiveNumber);
  AddKernelOptions(cmd, &args->kernels);
  AddPipelineOptions(cmd, &args->pipeline);
}

// output_<i>, or output_<i>.<k> for micro-batch k under --microbatches.
std::vector<runtime::NamedTensor> Outputs(const std::vector<runtime::Value>& outputs,
                                          const PipelineArgs& pipeline) {
  std::vector<runtime::NamedTensor> named;
  for (size_t k = 0; k < outputs.size(); ++k) {
    std::vector<runtime::Tensor> flat;
    outputs[k].Flatten(&flat);
    for (size_t i = 0; i < flat.size(); ++i) {
      std::string suffix = pipeline.microbatches > 0 ? "." + std::to_string(k) : "";
      named.emplace_back("output_" + std::to_string(i) + suffix, flat[i]);
    }
  }
  return named;
}

void PrintReports(const std::vector<runtime::WorkerReport>& reports) {
  for (const runtime::WorkerReport& r : reports) {
    std::printf("worker %d (group %d): %s, %zu weights, %s resident, %.3f s\n", r.worker, r.group,
                r.function.c_str(), r.weight_indices.size(),
                fmt::format("{:.1f} KiB", static_cast<double>(r.weight_bytes) / 1024.0).c_str(),
                r.seconds);
  }
}

// The session `launcher` runs: its groups formed from the flags and the module's stages.
runtime::SessionOptions Options(const RunArgs& args, const ir::IRModule& mod,
                                const runtime::Launcher& launcher) {
  runtime::SessionOptions options;
  runtime::EntryLayout layout = runtime::AnalyzeEntry(mod, args.entry);
  int stages = layout.stages.empty() ? 1 : static_cast<int>(layout.stages.size());
  // A tensor-parallel module runs on groups of as many workers as it has shards.
  const runtime::TensorParallelPlan plan = runtime::TensorParallelPlanOf(mod);
  int group_size = args.group_size;
  if (group_size == 0 && plan.shards > 1 && (launcher.name() != "mpi" || args.groups == 0)) {
    group_size = static_cast<int>(plan.shards);
  }
  runtime::GroupShape shape = launcher.FormGroups({args.groups, group_size}, stages);
  runtime::CheckGroupSize(plan, shape.group_size);
  options.num_groups = shape.num_groups;
  options.group_size = shape.group_size;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  options.kernels = LoadKernels(mod, args.kernels);
  options.metadata = LoadMetadata(args.inputs.metadata);
  ApplyPipelineArgs(args.pipeline, &options);
  return options;
}

int RunOn(runtime::Launcher& launcher, const RunArgs& args) {
  ir::IRModule mod = LoadModuleForWeights(args.module, args.weights);
  Weights weights = OpenWeights(args.weights, mod);
  runtime::SessionOptions options = Options(args, mod, launcher);
  runtime::ResolveSchedule(options);  // a bad schedule fails before any input is read
  std::vector<std::vector<runtime::Value>> inputs = LoadInputs(
      args.inputs, mod, args.entry, options.kernels, options.metadata, args.pipeline.microbatches);
  runtime::RunResult result = launcher.Run(mod, args.entry, inputs, *weights.source, options);
  PrintReports(result.workers);
  if (!result.holds_outputs) return 0;
  ReportTrace(args.pipeline, result.trace);
  std::vector<runtime::NamedTensor> outputs = Outputs(result.outputs, args.pipeline);
  runtime::WriteSafetensors(args.output, outputs);
  std::printf("wrote %zu output%s to %s\n", outputs.size(), outputs.size() == 1 ? "" : "s",
              args.output.c_str());
  return 0;
}

// verify-split --unsharded: runs the unsharded model on one worker for every micro-batch and
// compares its outputs with `split` (the split run's, flattened) within args.tolerance; prints
// the largest difference and returns whether it is within.
bool CompareUnsharded(const RunArgs& args, const runtime::WeightSource& weights,
                      size_t num_microbatches, const std::vector<runtime::Tensor>& split) {
  ir::IRModule mod = LoadModule(args.unsharded);
  runtime::CheckWeightTypes(mod, weights);
  std::unique_ptr<runtime::Launcher> launcher = runtime::MakeThreadLauncher();
  runtime::SessionOptions one;
  one.kernels = LoadKernels(mod, args.kernels);
  one.metadata = LoadMetadata(args.inputs.metadata);
  std::vector<std::vector<runtime::Value>> inputs = LoadInputs(
      args.inputs, mod, args.entry, one.kernels, one.metadata, args.pipeline.microbatches);
  std::vector<runtime::Tensor> reference;
  for (size_t k = 0; k < inputs.size() && k < num_microbatches; ++k) {
    launcher->Run(mod, args.entry, {inputs[k]}, weights, one).output.Flatten(&reference);
  }
  if (reference.size() != split.size()) {
    std::printf("unsharded: %zu outputs but the split run has %zu\n", reference.size(),
                split.size());
    return false;
  }
  double max_diff = 0;
  for (size_t i = 0; i < split.size(); ++i) {
    if (reference[i].dtype() != split[i].dtype() || reference[i].shape() != split[i].shape()) {
      std::printf("output_%zu: unsharded %s vs split %s\n", i, reference[i].ToString().c_str(),
                  split[i].ToString().c_str());
      return false;
    }
    max_diff = std::max(max_diff, runtime::MaxAbsDiff(reference[i], split[i]));
  }
  const bool within = max_diff <= args.tolerance;
  std::printf("unsharded (%s, 1 worker): max abs diff %g, %s the tolerance %g\n",
              args.unsharded.c_str(), max_diff, within ? "within" : "BEYOND", args.tolerance);
  return within;
}

}  // namespace

Runner AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand("run", "run a module on worker groups");
  AddCommonRunOptions(cmd, args.get());
  cmd->add_option("--transport", args->transport,
                  "threads (in-process, default) or mpi (one worker per rank, under mpirun)")
      ->check(CLI::IsMember({"threads", "mpi"}));
  cmd->add_option("-o,--output", args->output, "outputs (safetensors): output_0, output_1, ...")
      ->required();
  return [args] {
    return WithLauncher(args->transport,
                        [&](runtime::Launcher& launcher) { return RunOn(launcher, *args); });
  };
}

Runner AddVerifySplitCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "verify-split",
      "run a module unsplit on one worker and split on its groups; compare outputs bit for bit");
  AddCommonRunOptions(cmd, args.get());
  cmd->add_option("--unsharded", args->unsharded,
                  "the same model without tensor parallelism (example llama without "
                  "--tensor-parallel), run on one worker and compared within --tolerance");
  cmd->add_option("--tolerance", args->tolerance,
                  "largest absolute difference allowed against --unsharded (default 1e-5): "
                  "sharded sums add in another order")
      ->check(CLI::NonNegativeNumber);
  return [args] {
    ir::IRModule mod = LoadModuleForWeights(args->module, args->weights);
    Weights opened = OpenWeights(args->weights, mod);
    const runtime::WeightSource& weights = *opened.source;
    std::vector<transform::StagePlan> plans;
    ir::IRModule split = transform::RewritePipelineStages(mod, &plans);
    analysis::VerifyWellFormed(split);
    runtime::CheckWeightTypes(split, weights);
    std::unique_ptr<runtime::Launcher> launcher = runtime::MakeThreadLauncher();
    runtime::SessionOptions options = Options(*args, split, *launcher);

    // The reference: every micro-batch alone, unsplit, on one group (of the split run's group
    // size: tensor parallelism alone) with a group's threads.
    runtime::SessionOptions single;
    single.group_size = options.group_size;
    single.timeout = options.timeout;
    single.kernels = LoadKernels(mod, args->kernels);
    single.metadata = LoadMetadata(args->inputs.metadata);
    single.threads_per_group = options.threads_per_group;
    single.blas_threads_per_group = options.blas_threads_per_group;
    // Inputs are made afresh for each run: a --arg value may be mutable state (a KV cache).
    std::vector<std::vector<runtime::Value>> inputs =
        LoadInputs(args->inputs, mod, args->entry, single.kernels, single.metadata,
                   args->pipeline.microbatches);
    std::vector<runtime::Value> reference_outputs;
    runtime::RunResult reference;
    for (const std::vector<runtime::Value>& microbatch : inputs) {
      reference = launcher->Run(mod, args->entry, {microbatch}, weights, single);
      reference_outputs.push_back(reference.output);
    }
    inputs = LoadInputs(args->inputs, mod, args->entry, single.kernels, single.metadata,
                        args->pipeline.microbatches);
    runtime::RunResult staged = launcher->Run(split, args->entry, inputs, weights, options);

    std::vector<runtime::Tensor> a, b;
    for (const runtime::Value& v : reference_outputs) v.Flatten(&a);
    for (const runtime::Value& v : staged.outputs) v.Flatten(&b);
    bool identical = a.size() == b.size();
    double max_diff = 0;
    for (size_t i = 0; identical && i < a.size(); ++i) {
      if (a[i].dtype() != b[i].dtype() || a[i].shape() != b[i].shape()) {
        std::printf("output_%zu: unsplit %s vs split %s\n", i, a[i].ToString().c_str(),
                    b[i].ToString().c_str());
        identical = false;
        break;
      }
      max_diff = std::max(max_diff, runtime::MaxAbsDiff(a[i], b[i]));
      identical &= runtime::BitwiseEqual(a[i], b[i]);
    }
    std::printf("unsplit: 1 group x %d worker%s; split: %d groups x %d workers (%zu stages)\n",
                options.group_size, options.group_size == 1 ? "" : "s", options.num_groups,
                options.group_size,
                plans.empty() ? size_t{1} : static_cast<size_t>(plans[0].num_stages));
    for (int g = 0; g < options.num_groups; ++g) {
      const runtime::WorkerReport& r = staged.workers[static_cast<size_t>(g) * options.group_size];
      std::printf("  group %d: %s reads %zu weights, %s\n", g, r.function.c_str(),
                  r.weight_indices.size(), fmt::format("{} bytes", r.weight_bytes).c_str());
    }
    std::printf("  unsplit worker reads %zu weights, %lld bytes\n",
                reference.workers[0].weight_indices.size(),
                static_cast<long long>(reference.workers[0].weight_bytes));
    ReportTrace(args->pipeline, staged.trace);
    if (args->pipeline.num_microbatches() > 1) {
      std::printf("micro-batches: %d, each compared with its own unsplit run\n",
                  args->pipeline.num_microbatches());
    }
    bool within = true;
    if (!args->unsharded.empty()) {
      within = CompareUnsharded(*args, weights, inputs.size(), b);
    }
    if (identical) {
      std::printf("verdict: bit-identical (%zu output%s, max abs diff %g)%s\n", a.size(),
                  a.size() == 1 ? "" : "s", max_diff,
                  within ? "" : "; the unsharded model differs beyond the tolerance");
      return within ? 0 : 1;
    }
    std::printf("verdict: MISMATCH (%zu vs %zu outputs, max abs diff %g)\n", a.size(), b.size(),
                max_diff);
    return 1;
  };
}

}  // namespace pipesplit::cli
