// sift: LLM-based semantic labeling by scoring. Subcommands register themselves
// (src/apps/command.h); main only parses and turns errors into one clear line.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "apps/command.h"
#include "core/error.h"
#include "core/log.h"
#include "core/parallel.h"

namespace sift::apps {
std::vector<RegisterFn>& command_registry() {
  static std::vector<RegisterFn> registry;
  return registry;
}
}  // namespace sift::apps

int main(int argc, char** argv) {
  CLI::App app{"sift: label (query, candidate) pairs by scoring them with an LLM"};
  app.require_subcommand(1);
  bool verbose = false;
  int threads = 0;
  app.add_flag("-v,--verbose", verbose, "debug logging on stderr");
  app.add_option("--threads", threads, "worker threads (default: all cores)");
  for (auto& register_command : sift::apps::command_registry()) register_command(app);
  app.parse_complete_callback([&] {
    sift::init_logging(verbose);
    sift::set_n_threads(threads);
  });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sift: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
