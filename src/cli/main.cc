// pipesplit: the command-line tool. Exit status: 0 success, 1 a user error (reported as
// located diagnostics), 2 an internal error (a bug in pipesplit).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "src/cli/cli_common.h"

namespace {

// The error for a command line naming a subcommand that does not exist, or an empty string.
// Walks the subcommands named on the line: at a command that has subcommands, the next word that
// is not an option must name one of them (the commands with subcommands take no positional
// arguments), so `pipesplit frobnicate --help` is this error too, not the main help.
std::string UnknownSubcommandError(const CLI::App& app, int argc, char** argv) {
  const CLI::App* at = &app;
  std::string path;  // the subcommands named so far
  for (int i = 1; i < argc; ++i) {
    std::vector<const CLI::App*> subs = at->get_subcommands([](const CLI::App*) { return true; });
    if (subs.empty()) return {};
    std::string word = argv[i];
    if (word.empty() || word[0] == '-') return {};
    const CLI::App* next = nullptr;
    std::string names;
    for (const CLI::App* sub : subs) {
      if (sub->check_name(word)) next = sub;
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (next == nullptr) {
      std::string where = path.empty() ? std::string() : fmt::format(" of '{}'", path);
      return fmt::format("unknown subcommand '{}'{} (subcommands: {})", word, where, names);
    }
    at = next;
    path += (path.empty() ? "" : " ") + next->get_name();
  }
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  using namespace pipesplit;
  CLI::App app{"pipesplit: pipeline parallelism for Relax programs", "pipesplit"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "pipesplit 0.1.0");
  std::map<const CLI::App*, cli::Runner> runners;
  auto add = [&](cli::Runner (*adder)(CLI::App&)) {
    size_t before = app.get_subcommands({}).size();
    cli::Runner runner = adder(app);
    runners[app.get_subcommands({})[before]] = std::move(runner);
  };
  add(cli::AddFmtCommand);
  add(cli::AddCheckCommand);
  add(cli::AddDiffCommand);
  add(cli::AddBuildCommand);
  add(cli::AddOptCommand);
  add(cli::AddPassesCommand);
  add(cli::AddRunCommand);
  add(cli::AddVerifySplitCommand);
  add(cli::AddGenerateCommand);
  add(cli::AddServeCommand);
  add(cli::AddConvertCommand);
  add(cli::AddExampleCommand);

  if (std::string unknown = UnknownSubcommandError(app, argc, argv); !unknown.empty()) {
    std::fprintf(stderr, "error: %s\nrun with --help for usage\n", unknown.c_str());
    return 1;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (!message.empty()) message[0] = static_cast<char>(std::tolower(message[0]));
    while (!message.empty() && (message.back() == '.' || message.back() == '\n')) {
      message.pop_back();
    }
    std::fprintf(stderr, "error: %s\nrun with --help for usage\n", message.c_str());
    return 1;
  }

  try {
    for (const CLI::App* sub : app.get_subcommands()) return runners.at(sub)();
  } catch (...) {
    return cli::ReportCurrentException();
  }
  return 0;
}
