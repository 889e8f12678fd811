// pipesplit: the command-line tool. Exit status: 0 success, 1 a user error (reported as
// located diagnostics), 2 an internal error (a bug in pipesplit).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <map>

#include "src/cli/cli_common.h"

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
  add(cli::AddExampleCommand);

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
