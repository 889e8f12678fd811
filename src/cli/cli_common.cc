// File and option helpers of the pipesplit command-line tool.
#include "src/cli/cli_common.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <new>

#include "pipesplit/codegen/codegen.h"
#include "pipesplit/runtime/tensor.h"
#include "pipesplit/script/parser.h"
#include "pipesplit/script/syntax.h"
#include "pipesplit/support/check.h"
#include "pipesplit/support/diagnostic.h"
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

int ReportCurrentException() {
  try {
    throw;
  } catch (const DiagnosticError& e) {
    std::fputs(e.what(), stderr);
    return 1;
  } catch (const codegen::CodegenError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const runtime::RuntimeError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  } catch (const InternalError& e) {
    std::fprintf(stderr, "internal error: %s\nplease report this bug\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\nplease report this bug\n", e.what());
    return 2;
  }
}

// A 640-layer module builds a heap of about 130 MB. On 4 KiB pages its first touches cost some
// 35,000 page faults, 40% of a `pipesplit opt` run on a virtual machine (1.15 s; 0.60 s with
// huge pages). glibc backs the heap with huge pages only when its tunable is set at startup.
void EnableHugePageHeap(char** argv) {
  if (std::getenv("GLIBC_TUNABLES") != nullptr) return;  // the user's choice, or already done
  std::ifstream thp("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string modes;
  if (!std::getline(thp, modes) || modes.find("[never]") != std::string::npos) return;
  if (setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1", 1) != 0) return;
  execv("/proc/self/exe", argv);
  // exec failed (no /proc, say): run on the default heap.
}

}  // namespace pipesplit::cli
