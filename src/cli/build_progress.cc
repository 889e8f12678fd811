// The progress line of a kernel build (cli_common.h).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "src/cli/cli_common.h"

namespace pipesplit::cli {
namespace {

// A build shorter than this shows nothing on a terminal.
constexpr double kShowAfterSeconds = 1.0;

std::string Describe(const codegen::BuildProgress& p) {
  std::string kernels = fmt::format("{} kernel{}", p.kernels, p.kernels == 1 ? "" : "s");
  if (p.distinct != p.kernels) kernels += fmt::format(", {} distinct", p.distinct);
  if (p.finished) {
    return fmt::format("built {} ({} compiled, {} cached) in {:.1f} s", kernels, p.to_compile,
                       p.distinct - p.to_compile, p.elapsed_s);
  }
  std::string text = fmt::format("building {}: {}/{} compiled, {:.1f} s", kernels, p.compiled,
                                 p.to_compile, p.elapsed_s);
  if (p.linking) return text + ", linking";
  if (p.remaining_s >= 0) return text + fmt::format(", about {:.0f} s left", p.remaining_s + 0.5);
  return text;
}

}  // namespace

BuildProgressLine::BuildProgressLine(bool quiet, bool forced)
    : enabled_(!quiet && (forced || ::isatty(STDERR_FILENO) == 1)),
      terminal_(::isatty(STDERR_FILENO) == 1) {}

BuildProgressLine::~BuildProgressLine() {
  // A build that failed: its line stays, and the error starts a line of its own.
  if (open_) std::fputc('\n', stderr);
}

void BuildProgressLine::Update(const codegen::BuildProgress& progress) {
  if (!enabled_) return;
  if (terminal_) {
    if (!open_ && !progress.finished && progress.elapsed_s < kShowAfterSeconds) return;
    if (!open_ && progress.finished) return;  // done within the second: nothing to show
    Write(Describe(progress), progress.finished);
    return;
  }
  // Not a terminal (--progress): a line when a kernel is done, when linking, and at the end.
  if (progress.compiled == last_compiled_ && !progress.linking && !progress.finished) return;
  last_compiled_ = progress.compiled;
  Write(Describe(progress), true);
}

void BuildProgressLine::Write(const std::string& text, bool end_line) {
  if (terminal_) {
    std::fprintf(stderr, "\r%s\x1b[K%s", text.c_str(), end_line ? "\n" : "");
    open_ = !end_line;
  } else {
    std::fprintf(stderr, "%s\n", text.c_str());
  }
  std::fflush(stderr);
}

}  // namespace pipesplit::cli
