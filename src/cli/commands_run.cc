// pipesplit run / verify-split: execute a module on worker groups.
#include <fmt/format.h>

#include <cstdio>

#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/runtime/safetensors.h"
#include "pipesplit/runtime/session.h"
#include "pipesplit/runtime/weights.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pipeline_parallel_rewrite.h"
#include "src/cli/cli_common.h"
#include "src/cli/run_inputs.h"

namespace pipesplit::cli {
namespace {

struct RunArgs {
  std::string module;
  std::string entry = "main";
  std::string params;
  InputOptions inputs;
  int groups = 0;  // 0: as many as the module has stages
  int group_size = 1;
  std::string transport = "threads";
  double timeout = 60;
  std::string output;
  KernelOptions kernels;
};

void AddCommonRunOptions(CLI::App* cmd, RunArgs* args) {
  cmd->add_option("module", args->module, "TVMScript module")->required();
  cmd->add_option("--entry", args->entry, "function to run (default: main)");
  cmd->add_option("--params", args->params, "weights (safetensors) for packed_params")->required();
  AddInputOptions(cmd, &args->inputs);
  cmd->add_option("--groups", args->groups, "worker groups (default: the module's stages)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--group-size", args->group_size, "workers per group (default: 1)")
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--timeout", args->timeout,
                  "seconds a receive waits for its send before failing (default: 60)")
      ->check(CLI::PositiveNumber);
  AddKernelOptions(cmd, &args->kernels);
}

std::vector<runtime::NamedTensor> Outputs(const runtime::Value& output) {
  std::vector<runtime::Tensor> flat;
  output.Flatten(&flat);
  std::vector<runtime::NamedTensor> named;
  for (size_t i = 0; i < flat.size(); ++i)
    named.emplace_back("output_" + std::to_string(i), flat[i]);
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

runtime::SessionOptions Options(const RunArgs& args, const ir::IRModule& mod) {
  runtime::SessionOptions options;
  runtime::EntryLayout layout = runtime::AnalyzeEntry(mod, args.entry);
  int stages = layout.stages.empty() ? 1 : static_cast<int>(layout.stages.size());
  options.num_groups = args.groups > 0 ? args.groups : stages;
  options.group_size = args.group_size;
  options.timeout = std::chrono::milliseconds(static_cast<int64_t>(args.timeout * 1000));
  options.kernels = LoadKernels(mod, args.kernels);
  options.metadata = LoadMetadata(args.inputs.metadata);
  return options;
}

int RunThreadsCommand(const RunArgs& args) {
  ir::IRModule mod = LoadModule(args.module);
  runtime::SessionOptions options = Options(args, mod);
  runtime::SafetensorsWeights weights(runtime::SafetensorsFile::Open(args.params));
  std::vector<runtime::Value> inputs =
      LoadInputs(args.inputs, mod, args.entry, options.kernels, options.metadata);
  runtime::RunResult result = runtime::RunThreads(mod, args.entry, inputs, weights, options);
  std::vector<runtime::NamedTensor> outputs = Outputs(result.output);
  runtime::WriteSafetensors(args.output, outputs);
  PrintReports(result.workers);
  std::printf("wrote %zu output%s to %s\n", outputs.size(), outputs.size() == 1 ? "" : "s",
              args.output.c_str());
  return 0;
}

int RunMpiWorker(const RunArgs& args) {
  int rank = runtime::MpiRank();
  int world = runtime::MpiWorldSize();
  ir::IRModule mod = LoadModule(args.module);
  runtime::SessionOptions options = Options(args, mod);
  if (args.groups > 0 || args.group_size == 1) {
    if (world % options.num_groups != 0) {
      throw runtime::RuntimeError(
          fmt::format("{} MPI ranks cannot form {} equal groups", world, options.num_groups));
    }
    options.group_size = world / options.num_groups;
  } else {
    if (world % options.group_size != 0) {
      throw runtime::RuntimeError(
          fmt::format("{} MPI ranks cannot form groups of {}", world, options.group_size));
    }
    options.num_groups = world / options.group_size;
  }
  std::unique_ptr<runtime::Transport> transport = runtime::MakeMpiTransport(options.timeout);
  runtime::SafetensorsWeights weights(runtime::SafetensorsFile::Open(args.params));
  std::vector<runtime::Value> inputs =
      LoadInputs(args.inputs, mod, args.entry, options.kernels, options.metadata);
  runtime::RunResult result;
  try {
    result = runtime::RunWorker(mod, args.entry, inputs, weights, options, *transport, rank);
  } catch (const runtime::WorkerError& e) {
    if (!e.aborted()) transport->Abort(rank, e.what());
    throw;
  }
  PrintReports(result.workers);
  if (rank == (options.num_groups - 1) * options.group_size) {
    std::vector<runtime::NamedTensor> outputs = Outputs(result.output);
    runtime::WriteSafetensors(args.output, outputs);
    std::printf("wrote %zu output%s to %s\n", outputs.size(), outputs.size() == 1 ? "" : "s",
                args.output.c_str());
  }
  return 0;
}

// Each rank reports its own error before MPI_Finalize: mpirun stops the job as soon as one rank
// exits non-zero, so a rank that printed after finalizing could lose its message.
int RunMpiCommand(const RunArgs& args) {
  int exit_code = 0;
  try {
    exit_code = RunMpiWorker(args);
  } catch (...) {
    exit_code = ReportCurrentException();
  }
  std::fflush(stderr);
  std::fflush(stdout);
  runtime::FinalizeMpi();
  return exit_code;
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
  return
      [args] { return args->transport == "mpi" ? RunMpiCommand(*args) : RunThreadsCommand(*args); };
}

Runner AddVerifySplitCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "verify-split",
      "run a module unsplit on one worker and split on its groups; compare outputs bit for bit");
  AddCommonRunOptions(cmd, args.get());
  return [args] {
    ir::IRModule mod = LoadModule(args->module);
    runtime::SafetensorsWeights weights(runtime::SafetensorsFile::Open(args->params));

    runtime::SessionOptions single;
    single.timeout = std::chrono::milliseconds(static_cast<int64_t>(args->timeout * 1000));
    single.kernels = LoadKernels(mod, args->kernels);
    single.metadata = LoadMetadata(args->inputs.metadata);
    // Inputs are made afresh for each run: a --arg value may be mutable state (a KV cache).
    std::vector<runtime::Value> inputs =
        LoadInputs(args->inputs, mod, args->entry, single.kernels, single.metadata);
    runtime::RunResult reference = runtime::RunThreads(mod, args->entry, inputs, weights, single);

    std::vector<transform::StagePlan> plans;
    ir::IRModule split = transform::RewritePipelineStages(mod, &plans);
    analysis::VerifyWellFormed(split);
    runtime::SessionOptions options = Options(*args, split);
    inputs = LoadInputs(args->inputs, mod, args->entry, single.kernels, single.metadata);
    runtime::RunResult staged = runtime::RunThreads(split, args->entry, inputs, weights, options);

    std::vector<runtime::Tensor> a, b;
    reference.output.Flatten(&a);
    staged.output.Flatten(&b);
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
    std::printf("unsplit: 1 worker; split: %d groups x %d workers (%zu stages)\n",
                options.num_groups, options.group_size,
                plans.empty() ? size_t{1} : static_cast<size_t>(plans[0].num_stages));
    for (int g = 0; g < options.num_groups; ++g) {
      const runtime::WorkerReport& r = staged.workers[static_cast<size_t>(g) * options.group_size];
      std::printf("  group %d: %s reads %zu weights, %s\n", g, r.function.c_str(),
                  r.weight_indices.size(), fmt::format("{} bytes", r.weight_bytes).c_str());
    }
    std::printf("  unsplit worker reads %zu weights, %lld bytes\n",
                reference.workers[0].weight_indices.size(),
                static_cast<long long>(reference.workers[0].weight_bytes));
    if (identical) {
      std::printf("verdict: bit-identical (%zu output%s, max abs diff %g)\n", a.size(),
                  a.size() == 1 ? "" : "s", max_diff);
      return 0;
    }
    std::printf("verdict: MISMATCH (%zu vs %zu outputs, max abs diff %g)\n", a.size(), b.size(),
                max_diff);
    return 1;
  };
}

}  // namespace pipesplit::cli
