// File and option helpers of the pipesplit command-line tool.
#include "src/cli/cli_common.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <thread>

#include "pipesplit/runtime/exec/session.h"
#include "pipesplit/runtime/launch/launch.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/syntax.h"
#include "pipesplit/support/diagnostic.h"
#include "pipesplit/support/error.h"
#include "pipesplit/support/text.h"

namespace pipesplit::cli {

const SourceFile& ReadSource(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return SourceManager::Global().Add("<stdin>", std::move(text));
  }
  std::string error;
  if (!ReadFile(path, &text, &error)) ThrowError({}, error);
  return SourceManager::Global().Add(path, std::move(text));
}

ir::IRModule LoadModule(const std::string& path) { return script::ParseModule(ReadSource(path)); }

void WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) ThrowError({}, "cannot write '" + path + "'");
  out << text;
  out.close();
  if (!out) ThrowError({}, "cannot write '" + path + "'");
}

void AddSyntaxOption(CLI::App* app, std::optional<ir::Syntax>* syntax) {
  app->add_option_function<std::string>(
         "--syntax", [syntax](const std::string& name) { *syntax = script::ParseSyntaxName(name); },
         "TVMScript syntax to print: classic or current (default: the input's)")
      ->check(CLI::IsMember({"classic", "current"}));
}

void AddTirSyntaxOption(CLI::App* app, std::optional<ir::TirSyntax>* syntax) {
  app->add_option_function<std::string>(
         "--tir-syntax",
         [syntax](const std::string& name) { *syntax = script::ParseTirSyntaxName(name); },
         "TIR block spelling to print: block (T.block) or sblock (T.sblock, TVM since 2026; "
         "default: the input's)")
      ->check(CLI::IsMember({"block", "sblock"}));
}

int ReportCurrentException() {
  ErrorReport report = pipesplit::ReportCurrentException();
  std::fputs(report.text.c_str(), stderr);
  return report.exit_code;
}

void ApplyThreadsPerGroup(int flag, runtime::SessionOptions* options) {
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options->threads_per_group = flag > 0 ? flag : std::max(1, cores / options->num_groups);
  // PIPESPLIT_NUM_THREADS (threading.h) still decides when the flag is not given.
  if (flag == 0 && std::getenv("PIPESPLIT_NUM_THREADS") != nullptr) options->threads_per_group = 0;
  options->blas_threads_per_group = flag;
}

int WithLauncher(const std::string& transport, const std::function<int(runtime::Launcher&)>& body) {
  std::unique_ptr<runtime::Launcher> launcher =
      transport == "mpi" ? runtime::MakeMpiLauncher() : runtime::MakeThreadLauncher();
  int exit_code = 0;
  try {
    exit_code = body(*launcher);
  } catch (...) {
    exit_code = ReportCurrentException();
  }
  std::fflush(stderr);
  std::fflush(stdout);
  if (std::optional<std::string> lost = launcher->Shutdown()) {
    if (!lost->empty()) std::fprintf(stderr, "error: %s\n", lost->c_str());
    std::fflush(stderr);
    exit_code = 1;
  }
  return exit_code;
}

}  // namespace pipesplit::cli
