// Shared helpers of the pipesplit command-line tool.
#ifndef PIPESPLIT_SRC_CLI_CLI_COMMON_H_
#define PIPESPLIT_SRC_CLI_CLI_COMMON_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/ir/module.h"

namespace pipesplit::runtime {
class KernelLibrary;
class Launcher;
struct SessionOptions;
}  // namespace pipesplit::runtime

namespace pipesplit::cli {

// Reads a file ("-": standard input) and registers it as a source file. Throws
// DiagnosticError "cannot open ..." when it cannot be read.
const SourceFile& ReadSource(const std::string& path);

// Parses a TVMScript module from a file.
ir::IRModule LoadModule(const std::string& path);

// Writes text to a file, or to standard output when path is "-" or empty.
void WriteOutput(const std::string& path, const std::string& text);

// Adds `--syntax classic|current` to a command; `*syntax` stays empty when not given.
void AddSyntaxOption(CLI::App* app, std::optional<ir::Syntax>* syntax);
// Adds `--tir-syntax block|sblock` (how TIR blocks are spelled); empty when not given.
void AddTirSyntaxOption(CLI::App* app, std::optional<ir::TirSyntax>* syntax);

// Reports the exception being handled on stderr and returns the exit code: 1 for user errors
// (diagnostics, runtime errors, out of memory), 2 for internal errors. Call it from a catch.
int ReportCurrentException();

// Where compiled kernel libraries are kept, and whether their accesses are bounds checked
// (`--kernel-cache DIR`, `--check-bounds`).
struct KernelOptions {
  std::string cache_dir;
  bool check_bounds = false;
  int jobs = 0;           // compiler processes at once (0: the cores)
  bool quiet = false;     // no progress line
  bool progress = false;  // progress even when standard error is not a terminal
};
void AddKernelOptions(CLI::App* cmd, KernelOptions* options);
// The progress of a kernel build on standard error. On a terminal, once a build has run for a
// second, one line updated in place (kernels compiled / to compile, elapsed, estimate) and ended
// when the build ends or fails; elsewhere, only with `forced`, a line per compiled kernel; never
// when `quiet`.
class BuildProgressLine {
 public:
  BuildProgressLine(bool quiet, bool forced);
  ~BuildProgressLine();
  BuildProgressLine(const BuildProgressLine&) = delete;
  BuildProgressLine& operator=(const BuildProgressLine&) = delete;
  void Update(const codegen::BuildProgress& progress);

 private:
  void Write(const std::string& text, bool end_line);
  bool enabled_ = false;
  bool terminal_ = false;
  bool open_ = false;  // a line is shown and not ended
  int last_compiled_ = -1;
};
// The kernel library of `mod`'s PrimFuncs, compiled or found in the cache (codegen).
std::string BuildKernels(const ir::IRModule& mod, const KernelOptions& options);
// The loaded kernel library of `mod` (built on the fly through the cache), or nullptr when the
// module has no PrimFunc.
std::shared_ptr<const runtime::KernelLibrary> LoadKernels(const ir::IRModule& mod,
                                                          const KernelOptions& options);

// Sets the session's kernel and OpenBLAS threads per group from `--threads-per-group` (`flag`,
// 0 when not given): the flag for both, else cores / groups for the kernels (or
// PIPESPLIT_NUM_THREADS when set) and OpenBLAS left at 1, because sgemm's results depend on its
// thread count. `options->num_groups` must be set.
void ApplyThreadsPerGroup(int flag, runtime::SessionOptions* options);

// Runs `body` on a launcher of `transport` ("threads" or "mpi") and shuts the launcher down.
// Returns body's exit code, or the exit code of the error it threw (reported before the
// shutdown: mpirun stops the job as soon as one rank exits non-zero, so a rank that printed
// after shutting down could lose its message), or 1 when a worker was lost.
int WithLauncher(const std::string& transport, const std::function<int(runtime::Launcher&)>& body);

// Each subcommand registers itself and returns the function that runs it (exit code).
using Runner = std::function<int()>;
Runner AddFmtCommand(CLI::App& app);
Runner AddCheckCommand(CLI::App& app);
Runner AddDiffCommand(CLI::App& app);
Runner AddOptCommand(CLI::App& app);
Runner AddPassesCommand(CLI::App& app);
Runner AddRunCommand(CLI::App& app);
Runner AddVerifySplitCommand(CLI::App& app);
Runner AddGenerateCommand(CLI::App& app);
Runner AddServeCommand(CLI::App& app);
Runner AddConvertCommand(CLI::App& app);
Runner AddExampleCommand(CLI::App& app);
Runner AddBuildCommand(CLI::App& app);
// `example random-inputs`, registered under the `example` command.
struct ExampleSubcommand {
  CLI::App* app;
  Runner run;
};
ExampleSubcommand AddRandomInputsCommand(CLI::App* example);

}  // namespace pipesplit::cli

#endif  // PIPESPLIT_SRC_CLI_CLI_COMMON_H_
