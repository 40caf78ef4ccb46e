#include "apps/engine_option.h"

#include "apps/cli.h"

namespace sift::apps {

void add_engine_options(CLI::App* cmd, EngineFlags& flags) {
  cmd->add_option("--engine", flags.urls,
                  "score on these scoring servers instead of this machine: http://host:port, comma-separated "
                  "(sift serve replicas with this labeler, or SGLang servers; docs/engines.md). The labeler "
                  "directory is read here (templates, tokenizer) but its weights are not loaded")
      ->delimiter(',');
  cmd->add_option("--engine-timeout", flags.timeout_seconds,
                  "with --engine: fail (exit 1, naming each engine's last failure) when work waits and no engine "
                  "has answered for this many seconds; until then failed requests (and any not answered within half "
                  "of it) are retried")
      ->capture_default_str()
      ->check(decimal_in(kMinEngineTimeoutSeconds, kMaxEngineTimeoutSeconds));
}

namespace {

void check_engine_mode(ScoringMode mode) {
  if (mode == ScoringMode::Generate)
    usage_error("--mode generate: the engines score (mis, independent, prefix); packed generation runs without "
                "--engine");
}

#if SIFT_HAVE_REMOTE
EngineOptions engine_options(const EngineFlags& engines) {
  return {.urls = engines.urls, .timeout_seconds = engines.timeout_seconds};
}
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
