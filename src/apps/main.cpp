// sift: LLM-based semantic labeling by scoring. Subcommands register themselves
// (src/apps/command.h); main parses the global options, runs the command and turns its
// outcome into one exit status and at most one error line:
//   0  success
//   1  runtime error: "sift: error: <what and where>" (a file, a row, the model)
//   2  usage error:   "sift: error: <the flag and what is wrong>", then a hint to --help
#include <CLI/CLI.hpp>
#include <omp.h>

#include <cstdio>
#include <exception>
#include <new>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/version.h"
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
// --threads beyond this many per core only costs memory (each thread has its buffers).
constexpr int kMaxThreadsPerCore = 4;

void add_global_options(CLI::App& app, GlobalOptions& global) {
  app.add_flag("-v,--verbose", global.verbose, "debug logging on stderr");
  app.add_flag("-q,--quiet", global.quiet, "no progress on stderr (errors and warnings are still shown)");
  app.add_flag("--pretty", global.pretty, "JSON reports on stdout indented, not on one line");
  app.add_option("--threads", global.threads, "worker threads, >= 1 (default: all cores)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            int value = 0;
            if (!CLI::detail::lexical_cast(text, value) || value < 1) return "must be at least 1, got " + text;
            return std::string();
          },
          ">= 1"));
}

// Applies the global options once parsing is done, before the command runs.
void apply_global_options(const GlobalOptions& global) {
  init_logging(global.verbose);
  if (!global.threads) return;
  const int cores = omp_get_num_procs();
  int threads = *global.threads;
  if (threads > kMaxThreadsPerCore * cores) {
    spdlog::warn("--threads {} is more than {} per core on this machine of {} cores: using {}", threads,
                 kMaxThreadsPerCore, cores, kMaxThreadsPerCore * cores);
    threads = kMaxThreadsPerCore * cores;
  }
  set_n_threads(threads);
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

int usage_failure(const CLI::App& app, const CLI::ParseError& e) {
  std::fprintf(stderr, "sift: error: %s\nRun `%s --help` for the options.\n", e.what(), command_path(app).c_str());
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
  app.parse_complete_callback([] { apply_global_options(global_options()); });
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
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "sift: error: out of memory\n");
    return kExitRuntimeError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sift: error: %s\n", e.what());
    return kExitRuntimeError;
  }
  return 0;
}
