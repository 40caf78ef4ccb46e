#include "apps/engine_option.h"

#include "apps/cli.h"

namespace sift::apps {

namespace {

void check_engine_mode(ScoringMode mode) {
  if (mode == ScoringMode::Generate)
    usage_error("--mode generate: the engines score ({}); packed generation runs without --engine",
                score_mode_names());
}

#if SIFT_HAVE_REMOTE
EngineOptions engine_options(const EngineFlags& engines) { return engines.options(); }
#else
[[noreturn]] void no_engine_client() {
  usage_error("--engine: this sift was built without its serving component (SIFT_BUILD_SERVE=OFF), which holds "
              "the engines' client");
}
#endif

}  // namespace

Labeler load_labeler(const std::filesystem::path& dir, const LoadOptions& options, const EngineFlags& engines,
                     ScoringMode mode) {
  if (!engines.any()) return Labeler::load(dir, options);
  check_engine_mode(mode);
#if SIFT_HAVE_REMOTE
  return load_with_engines(dir, engine_options(engines), options);
#else
  no_engine_client();
#endif
}

LabelerOnEngines load_labeler_on_engines(const std::filesystem::path& dir, const LoadOptions& options,
                                         const EngineFlags& engines, ScoringMode mode) {
  check_engine_mode(mode);
#if SIFT_HAVE_REMOTE
  return load_with_engines_of_known_kind(dir, engine_options(engines), options);
#else
  no_engine_client();
#endif
}

}  // namespace sift::apps
