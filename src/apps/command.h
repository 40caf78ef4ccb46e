#pragma once
// Each subcommand lives in its own src/apps/cmd_*.cpp and registers itself here, so adding
// one never touches main.cpp. register_fn adds a CLI11 subcommand and sets its callback.
#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace sift::apps {

using RegisterFn = std::function<void(CLI::App& app)>;
std::vector<RegisterFn>& command_registry();

struct CommandRegistrar {
  explicit CommandRegistrar(RegisterFn fn) { command_registry().push_back(std::move(fn)); }
};

}  // namespace sift::apps

// SIFT_COMMAND(name) { ...body using CLI::App& app... }
#define SIFT_COMMAND(name)                                                         \
  static void register_##name(CLI::App& app);                                     \
  static const ::sift::apps::CommandRegistrar registrar_##name{register_##name};  \
  static void register_##name(CLI::App& app)
