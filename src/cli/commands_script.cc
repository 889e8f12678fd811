// pipesplit fmt / check / diff.
#include <cstdio>

#include "pipesplit/analysis/pipeline_checks.h"
#include "pipesplit/analysis/structural_equal.h"
#include "pipesplit/analysis/well_formed.h"
#include "pipesplit/script/printer.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {

Runner AddFmtCommand(CLI::App& app) {
  struct Args {
    std::string input;
    std::string output = "-";
    std::optional<ir::Syntax> syntax;
    std::optional<ir::TirSyntax> tir_syntax;
    bool for_tvm_parser = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("fmt", "print a TVMScript module canonically, as TVM does");
  cmd->add_option("input", args->input, "TVMScript file ('-' for standard input)")->required();
  cmd->add_option("-o,--output", args->output, "output file ('-' for standard output)");
  AddSyntaxOption(cmd, &args->syntax);
  AddTirSyntaxOption(cmd, &args->tir_syntax);
  cmd->add_flag("--for-tvm-parser", args->for_tvm_parser,
                "rename kernel vars that share a module-level TypeVar's name (m -> m_1), which "
                "TVM's parser refuses to read back");
  return [args] {
    ir::IRModule mod = LoadModule(args->input);
    script::PrintOptions options;
    options.syntax = args->syntax;
    options.tir_syntax = args->tir_syntax;
    options.for_tvm_parser = args->for_tvm_parser;
    WriteOutput(args->output, script::PrintModule(mod, options));
    return 0;
  };
}

Runner AddCheckCommand(CLI::App& app) {
  auto input = std::make_shared<std::string>();
  CLI::App* cmd = app.add_subcommand(
      "check",
      "parse a module and check that it is well-formed (and that staged functions' "
      "sends and receives pair up)");
  cmd->add_option("input", *input, "TVMScript file ('-' for standard input)")->required();
  return [input] {
    ir::IRModule mod = LoadModule(*input);
    std::vector<Diagnostic> problems = analysis::CheckWellFormed(mod);
    std::vector<Diagnostic> pairing = analysis::CheckSendRecvPairing(mod);
    problems.insert(problems.end(), pairing.begin(), pairing.end());
    if (!problems.empty()) throw DiagnosticError(std::move(problems));
    std::printf("%s: ok\n", *input == "-" ? "<stdin>" : input->c_str());
    return 0;
  };
}

Runner AddDiffCommand(CLI::App& app) {
  struct Args {
    std::string lhs, rhs;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "diff", "compare two modules structurally (modulo renaming); exit 1 if they differ");
  cmd->add_option("a", args->lhs, "first TVMScript file")->required();
  cmd->add_option("b", args->rhs, "second TVMScript file")->required();
  return [args] {
    ir::IRModule a = LoadModule(args->lhs);
    ir::IRModule b = LoadModule(args->rhs);
    analysis::StructuralDifference difference;
    if (analysis::StructuralEqual(a, b, &difference)) {
      std::printf("structurally equal\n");
      return 0;
    }
    std::printf("modules differ at %s\n  %s: %s\n  %s: %s\n", difference.path.c_str(),
                args->lhs.c_str(), difference.lhs.c_str(), args->rhs.c_str(),
                difference.rhs.c_str());
    return 1;
  };
}

}  // namespace pipesplit::cli
