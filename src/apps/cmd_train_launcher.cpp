// sift train: runs the trainer, the executable sift-train beside this one, with the same
// arguments. Training needs libtorch; keeping it out of `sift` keeps the scoring binary
// small and quick to start (`ldd sift` shows no torch). sift-train is src/apps/cmd_train.cpp
// with the same main, global options and exit codes.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "core/error.h"

namespace {

std::filesystem::path trainer_beside_this_binary() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) sift::fail("cannot find this executable (/proc/self/exe): {}", error.message());
  return self.parent_path() / "sift-train";
}

// Why there is no trainer to run, and how to get one: a build configured with it whose
// sift-train was not built (`make demo` builds the target sift only), or one without libtorch.
[[noreturn]] void no_trainer(const std::filesystem::path& trainer) {
#if SIFT_TRAINER_CONFIGURED
  sift::fail("{}: not found: the trainer is not built (`make demo` builds only sift); build it with `make`, or "
             "`cmake --build build --target sift-train`",
             trainer.string());
#else
  sift::fail("{}: not found: this sift was built without the trainer: it needs libtorch (apt-get install "
             "libtorch-dev) and SIFT_BUILD_TRAIN=ON; then `cmake --preset release && cmake --build build --target "
             "sift-train`",
             trainer.string());
#endif
}

[[noreturn]] void run_trainer(const std::vector<std::string>& arguments) {
  const std::filesystem::path trainer = trainer_beside_this_binary();
  if (::access(trainer.c_str(), X_OK) != 0) no_trainer(trainer);
  // Global options given before `train` go on before it, as sift-train's own.
  const sift::apps::GlobalOptions& global = sift::apps::global_options();
  std::vector<std::string> argv_text = {trainer.string()};
  if (global.verbose) argv_text.push_back("--verbose");
  if (global.quiet) argv_text.push_back("--quiet");
  if (global.pretty) argv_text.push_back("--pretty");
  if (global.threads) argv_text.insert(argv_text.end(), {"--threads", std::to_string(*global.threads)});
  argv_text.push_back("train");
  argv_text.insert(argv_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& text : argv_text) argv.push_back(text.data());
  argv.push_back(nullptr);
  ::execv(trainer.c_str(), argv.data());
  sift::fail("cannot run {}: {}", trainer.string(), std::strerror(errno));
}

}  // namespace

SIFT_COMMAND(train) {
  CLI::App* cmd = app.add_subcommand("train", "Fine-tune a labeler, --objective label (default) or generate (runs "
                                              "sift-train; `sift train --help` lists its options)");
  cmd->prefix_command();  // every argument after `train` is the trainer's, --help included
  cmd->fallthrough(false);
  cmd->set_help_flag();
  cmd->callback([cmd] { run_trainer(cmd->remaining()); });
}
