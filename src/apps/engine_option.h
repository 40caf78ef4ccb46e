#pragma once
// Loading a labeler for a command that may score on engines: --engine and --engine-timeout
// (apps/scoring_flags.h) say where it scores. Without --engine a command loads and scores as it
// always has.
#include <filesystem>

#include "apps/scoring_flags.h"
#include "sift/engines.h"
#include "sift/labeler.h"

namespace sift::apps {

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
