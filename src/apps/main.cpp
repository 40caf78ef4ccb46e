// sift: LLM-based semantic labeling by scoring. Subcommands register themselves
// (src/apps/command.h); main parses the global options, runs the command and turns its
// outcome into one exit status and at most one error line:
//   0  success
//   1  runtime error: "sift: error: <what and where>" (a file, a row, the model)
//   2  usage error:   "sift: error: <the flag and what is wrong>", then a hint to --help
//                     (CLI11's parse errors, usage_error, and a sift::OptionError from the
//                     library: a bad option value such as --k 0 or --shard 3/2); an unknown
//                     option or command is named first, with the name it may have meant)
#include <CLI/CLI.hpp>

#include <csignal>
#include <cstdio>
#include <exception>
#include <new>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/command_line_slips.h"
#include "apps/version_text.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"

namespace sift::apps {

std::vector<RegisterFn>& command_registry() {
  static std::vector<RegisterFn> registry;
  return registry;
}

namespace {

constexpr int kExitRuntimeError = 1;
constexpr int kExitUsageError = 2;

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_flag("-v,--verbose", global.verbose, "debug logging on stderr");
  app.add_flag("-q,--quiet", global.quiet, "no progress or info lines on stderr (warnings and errors still are)");
  app.add_flag("--pretty", global.pretty, "JSON reports on stdout indented, not on one line");
  app.add_option("--threads", global.threads,
                 fmt::format("worker threads, >= 1 (default: all cores; more than {} per core is capped there)",
                             kMaxThreadsPerCore))
      ->check(kThreadCount);
}

// An option given an empty value (`--artifact-version ''`, `--output ""`) is a usage error
// naming it, in every command and before its required options are looked at: an empty value
// never silently means the default. One check on every option of every command.
void refuse_empty_values(CLI::App& app) {
  static const CLI::Validator non_empty(
      [](const std::string& value) {
        return value.empty() ? std::string("the value is empty; leave the option out for its default") : std::string();
      },
      "", "NON_EMPTY");
  for (CLI::Option* option : app.get_options()) option->check(non_empty);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) refuse_empty_values(*sub);
}

// Applies the global options once parsing is done, before the command runs.
void apply_global_options(const GlobalOptions& global) {
  init_logging(global.verbose);
  if (global.quiet && !global.verbose) spdlog::set_level(spdlog::level::warn);  // warnings and errors only
  if (global.threads) set_n_threads(capped_threads("--threads", *global.threads));
}

// "sift score" for `sift score --bad`: the deepest subcommand the command line reached.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  const CLI::App* at = &app;
  while (true) {
    const std::vector<const CLI::App*> selected = at->get_subcommands({});
    const CLI::App* next = nullptr;
    for (const CLI::App* sub : selected)
      if (sub->parsed()) next = sub;
    if (!next) return path;
    path += " " + next->get_name();
    at = next;
  }
}

// A usage error says what the command line got wrong first (an unknown option or command,
// apps/command_line_slips.h) when that is why it failed, else the parser's or library's message.
int usage_failure(const CLI::App& app, const std::exception& e) {
  const std::string slip = slip_message(app, e);
  std::fprintf(stderr, "sift: error: %s\nRun `%s --help` for the options.\n", slip.empty() ? e.what() : slip.c_str(),
               command_path(app).c_str());
  return kExitUsageError;
}

}  // namespace
}  // namespace sift::apps

int main(int argc, char** argv) {
  using namespace sift::apps;
  CLI::App app{"sift: label (query, candidate) pairs by scoring them with an LLM", "sift"};
  app.require_subcommand(1);
  app.fallthrough();  // a subcommand passes the global options it does not know up here
  app.set_version_flag("--version", version_text(), "print version and build information");
  add_global_options(app, global_options());
  for (auto& register_command : command_registry()) register_command(app);
  refuse_empty_values(app);
  app.parse_complete_callback([] { apply_global_options(global_options()); });
  // A file-size limit (ulimit -f) makes a write fail with EFBIG, reported like a full disk,
  // instead of killing the process without a word.
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // CLI11's "success" exits (help, version) are above; every other parse error is usage.
    return usage_failure(app, e);
  } catch (const sift::OptionError& e) {  // the library's verdict on an option value
    return usage_failure(app, e);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "sift: error: out of memory\n");
    return kExitRuntimeError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sift: error: %s\n", e.what());
    return kExitRuntimeError;
  }
  return 0;
}
