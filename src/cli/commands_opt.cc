// pipesplit opt / passes.
#include <algorithm>
#include <cstdio>

#include "pipesplit/runtime/exec/weight_table.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/transform/pass.h"
#include "pipesplit/transform/stage_report.h"
#include "src/cli/cli_common.h"
#include "src/cli/weight_args.h"

namespace pipesplit::cli {

Runner AddOptCommand(CLI::App& app) {
  struct Args {
    std::string input;
    std::string pipeline;
    std::string output = "-";
    bool verify_each = false;
    bool time_passes = false;
    std::string stage_report;
    std::string stage_report_format = "json";
    std::string stage_report_svg;
    std::string param_names;
    std::optional<ir::Syntax> syntax;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("opt", "run a pipeline of passes over a module");
  cmd->add_option("input", args->input, "TVMScript file ('-' for standard input)")->required();
  cmd->add_option("-p,--passes", args->pipeline,
                  "pipeline: 'pass1,pass2{key=value,list=a;b}' (see 'pipesplit passes')")
      ->required();
  cmd->add_option("-o,--output", args->output, "output file ('-' for standard output)");
  cmd->add_flag("--verify-each", args->verify_each, "check well-formedness after every pass");
  cmd->add_flag("--time-passes", args->time_passes, "print the time each pass took (stderr)");
  cmd->add_option("--stage-report", args->stage_report,
                  "write the stage report of pipeline-parallel-rewrite ('-' for stdout)");
  cmd->add_option("--stage-report-format", args->stage_report_format, "json or text")
      ->check(CLI::IsMember({"json", "text"}));
  cmd->add_option("--stage-report-svg", args->stage_report_svg,
                  "write an SVG bar chart of the auto-pipeline-stages partition");
  cmd->add_option("--param-names", args->param_names,
                  "the names of the weights in the stage report's mlc object: a safetensors file "
                  "(its __metadata__[\"packed_params\"]), a .json list of names, or a module "
                  "with _metadata (default: the module's _metadata, else packed_params indices)");
  AddSyntaxOption(cmd, &args->syntax);
  return [args] {
    auto pipeline = transform::ParsePipeline(args->pipeline, "--passes");
    if (!args->stage_report_svg.empty() &&
        std::none_of(pipeline->passes().begin(), pipeline->passes().end(),
                     [](const auto& pass) { return pass->name() == "auto-pipeline-stages"; })) {
      std::fputs("error: --stage-report-svg needs an auto-pipeline-stages pass in the pipeline\n",
                 stderr);
      return 1;
    }
    ir::IRModule mod = LoadModule(args->input);
    transform::PassContext ctx;
    ctx.verify_each = args->verify_each;
    ctx.time_passes = args->time_passes;
    ir::IRModule out = pipeline->Run(mod, ctx);
    script::PrintOptions options;
    options.syntax = args->syntax;
    std::string text = script::PrintModule(out, options);
    if (!args->stage_report.empty()) {
      // The plans of the last pipeline-parallel-rewrite run; none when the pipeline has none.
      const std::vector<transform::StagePlan> none;
      const auto* set = ctx.Get<std::vector<transform::StagePlan>>();
      const std::vector<transform::StagePlan>& plans = set != nullptr ? *set : none;
      const auto* partition = ctx.Get<analysis::PartitionResult>();
      // MLC's layer_partition and per-parameter stages, when something was split.
      std::optional<transform::MlcPartitionOrError> mlc;
      if (!plans.empty()) {
        std::vector<std::string> names;
        std::optional<runtime::MlcParamList> list;
        if (!args->param_names.empty()) {
          list = ReadParamNames(args->param_names);
        } else {
          list = runtime::MlcParamsOfModule(mod);
        }
        if (list) {
          for (const runtime::MlcParam& p : list->params) names.push_back(p.name);
        }
        mlc = transform::TryComputeMlcPartition(out, plans, names);
        if (mlc->partition) {
          mlc->partition->tensor_parallel_shards = runtime::TensorParallelPlanOf(mod).shards;
        }
      }
      const transform::MlcPartitionOrError* mlc_ptr = mlc ? &*mlc : nullptr;
      WriteOutput(args->stage_report, args->stage_report_format == "text"
                                          ? transform::StageReportText(plans, partition, mlc_ptr)
                                          : transform::StageReportJson(plans, partition, mlc_ptr));
    }
    if (!args->stage_report_svg.empty()) {
      WriteOutput(args->stage_report_svg,
                  transform::PartitionSvg(*ctx.Get<analysis::PartitionResult>()));
    }
    WriteOutput(args->output, text);
    if (ctx.time_passes) std::fputs(ctx.TimingReport().c_str(), stderr);
    return 0;
  };
}

Runner AddPassesCommand(CLI::App& app) {
  app.add_subcommand("passes", "list the available passes and their options");
  return [] {
    for (const transform::PassInfo& info : transform::RegisteredPasses()) {
      std::printf("%-28s %s\n", info.name.c_str(), info.summary.c_str());
      for (const transform::PassOptionSpec& option : info.options) {
        std::printf("    %-24s %s%s\n", option.name.c_str(), option.help.c_str(),
                    option.required ? " (required)" : "");
      }
    }
    return 0;
  };
}

}  // namespace pipesplit::cli
