#pragma once
// --engine URL[,URL...] and --engine-timeout S: score on scoring servers (sift serve replicas,
// SGLang) instead of this machine (sift/engines.h, docs/engines.md), the same options on every
// command that scores rows. Without --engine a command loads and scores as it always has.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "sift/engines.h"
#include "sift/labeler.h"

namespace sift::apps {

struct EngineFlags {
  std::vector<std::string> urls;
  double timeout_seconds = 60;
  bool any() const { return !urls.empty(); }
};

void add_engine_options(CLI::App* cmd, EngineFlags& flags);

// The labeler of `dir`: loaded here, or (--engine) loaded without weights and scored on the
// engines, whose --weights must be options.weights (sift serve says how it holds them).
// --mode generate is a usage error with --engine (the engines do not generate).
Labeler load_labeler(const std::filesystem::path& dir, const LoadOptions& options, const EngineFlags& engines,
                     ScoringMode mode = ScoringMode::Mis);
// With --engine, for a record of which arithmetic scored (sift batch's job): the labeler and
// its engines' kind, known once one has answered its identity check.
LabelerOnEngines load_labeler_on_engines(const std::filesystem::path& dir, const LoadOptions& options,
                                         const EngineFlags& engines, ScoringMode mode);

}  // namespace sift::apps
