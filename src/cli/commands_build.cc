// pipesplit build: compiles a module's TIR kernels into one shared library (codegen), the
// library `run` and `verify-split` load. They build on the fly too, through the same cache.
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/codegen/fast_path.h"
#include "pipesplit/runtime/kernels/kernel_library.h"
#include "pipesplit/support/diagnostic.h"
#include "src/cli/cli_common.h"

namespace pipesplit::cli {

void AddKernelOptions(CLI::App* cmd, KernelOptions* options) {
  cmd->add_option(
      "--kernel-cache", options->cache_dir,
      "folder of compiled kernels and libraries (default: $PIPESPLIT_KERNEL_CACHE, else "
      "$XDG_CACHE_HOME/pipesplit/kernels, else ~/.cache/pipesplit/kernels)");
  cmd->add_flag("--check-bounds", options->check_bounds,
                "check every buffer access of every kernel; an access out of bounds is an error "
                "naming the kernel, the buffer and the index");
  cmd->add_option("--jobs", options->jobs,
                  "compiler processes at once when kernels are built (default: the cores)")
      ->check(CLI::Range(1, 1024));
  CLI::Option* quiet =
      cmd->add_flag("--quiet", options->quiet, "no progress line while kernels are built");
  cmd->add_flag("--progress", options->progress,
                "show the progress of a kernel build even when standard error is not a terminal")
      ->excludes(quiet);
}

namespace {

codegen::BuildResult BuildKernelsResult(const ir::IRModule& mod, const KernelOptions& options) {
  codegen::BuildOptions build;
  build.cache_dir = options.cache_dir;
  build.check_bounds = options.check_bounds;
  build.jobs = options.jobs;
  BuildProgressLine line(options.quiet, options.progress);
  build.progress = [&line](const codegen::BuildProgress& p) { line.Update(p); };
  return codegen::Build(mod, build);
}

}  // namespace

std::string BuildKernels(const ir::IRModule& mod, const KernelOptions& options) {
  return BuildKernelsResult(mod, options).library;
}

std::shared_ptr<const runtime::KernelLibrary> LoadKernels(const ir::IRModule& mod,
                                                          const KernelOptions& options) {
  bool has_kernels = false;
  for (const ir::IRModule::Member& member : mod.members()) {
    has_kernels |= ir::Is<ir::PrimFuncNode>(member.func);
  }
  if (!has_kernels) return nullptr;
  return runtime::KernelLibrary::Load(BuildKernels(mod, options));
}

Runner AddBuildCommand(CLI::App& app) {
  struct Args {
    std::string input;
    std::string output;
    KernelOptions kernels;
    bool fast_paths = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand(
      "build", "compile the module's TIR kernels (@T.prim_func) into one shared library");
  cmd->add_option("input", args->input, "TVMScript file ('-' for standard input)")->required();
  cmd->add_option("-o,--output", args->output, "the shared library to write (M.so)")->required();
  AddKernelOptions(cmd, &args->kernels);
  cmd->add_flag("--fast-paths", args->fast_paths,
                "list every kernel with its path: what the fast path recognised it as, or why "
                "it runs as written");
  return [args] {
    ir::IRModule mod = LoadModule(args->input);
    const codegen::BuildResult result = BuildKernelsResult(mod, args->kernels);
    std::error_code ec;
    std::filesystem::copy_file(result.library, args->output,
                               std::filesystem::copy_options::overwrite_existing, ec);
    if (ec) ThrowError({}, "cannot write '" + args->output + "': " + ec.message());
    std::printf("%s: kernels built into %s (%zu of %d on the fast path)\n",
                args->input == "-" ? "<stdin>" : args->input.c_str(), args->output.c_str(),
                result.fast_paths.size(), result.kernels);
    if (args->fast_paths) {
      for (const ir::IRModule::Member& m : mod.members()) {
        if (!ir::Is<ir::PrimFuncNode>(m.func)) continue;
        const codegen::FastPathMatch match =
            codegen::MatchFastPath(std::static_pointer_cast<const ir::PrimFuncNode>(m.func));
        std::printf(
            "  %s: %s%s\n", m.gvar->name_hint().c_str(),
            match.contraction ? "fast: " : "as written: ",
            match.contraction ? match.contraction->description.c_str() : match.refusal.c_str());
      }
    }
    if (!result.uncompiled.empty() && !args->kernels.quiet) {
      std::fprintf(stderr, "note: %zu kernels not compiled (a call of one fails naming why):\n",
                   result.uncompiled.size());
      for (const std::string& why : result.uncompiled) std::fprintf(stderr, "  %s\n", why.c_str());
    }
    return 0;
  };
}

}  // namespace pipesplit::cli
