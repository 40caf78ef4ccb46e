#pragma once
// The engines of a labeler loaded without its weights: one Fleet (remote/fleet.h) for every
// engine made, its engines' identities checked against the labeler directory first.
// sift::load_with_engines (sift/engines.h) and `sift label --engine` (its rounds' engine).
#include <filesystem>
#include <functional>
#include <memory>

#include "scoring/engine.h"
#include "scoring/loaded_labeler.h"
#include "sift/engines.h"

namespace sift::remote {

// How many calls' worth of requests a fleet of `engines` keeps in flight
// (LoadedLabeler::load_without_weights): about two per engine.
int64_t calls_in_flight(const EngineOptions& engines);

// Makes RemoteEngines on one fleet for `loaded`, the labeler of `dir`. Throws OptionError for
// a bad URL or option, Error when an engine that answers serves another labeler.
std::function<std::unique_ptr<Engine>()> connect_engines(const std::filesystem::path& dir, const LoadedLabeler& loaded,
                                                         const EngineOptions& engines);

}  // namespace sift::remote
