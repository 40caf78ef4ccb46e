#pragma once
// Engines elsewhere: a Labeler whose rows are scored by scoring servers over HTTP (`sift
// serve` replicas, or SGLang servers on GPUs) instead of on this machine (docs/engines.md).
//
//   sift::EngineOptions engines{.urls = {"http://10.0.0.5:8000", "http://10.0.0.6:8000"}};
//   sift::Labeler labeler = sift::load_with_engines("models/default-labeler", engines);
//   sift::RowResult r = labeler.score("profile text", {"Python", "Kubernetes"});
//
// The labeler directory stays here: its templates are rendered and tokenized here, and the
// engines get token ids (SGLang's /v1/score). Its weights are not loaded. Every engine must
// serve the same labeler: sift serve says so by the fingerprint of its files, and one that
// serves another is refused before any row is sent; an engine that names no fingerprint
// (SGLang) is checked by its model name and vocabulary, and its scores are its arithmetic.
// Against sift serve the scores are the same bits as local scoring.
//
// Requests are spread over the engines by outstanding tokens, a few in flight on each; one
// that fails (connection, timeout, 5xx, 429) is sent again, to whichever engine then takes it,
// after a backoff; an engine that keeps failing is left out for a while and probed back. A
// call fails (sift::Error naming each engine's last failure) only when work waits and no
// engine has answered for `timeout_seconds`. Mode generate is not sent to engines.
//
// Built with sift's serving component (SIFT_BUILD_SERVE), in the library sift_remote.
#include <filesystem>
#include <string>
#include <vector>

#include "sift/labeler.h"

namespace sift {

// The range of EngineOptions::timeout_seconds (--engine-timeout, Python's engine_timeout=): from
// a millisecond to a day; outside it, or not a finite number, is an OptionError.
inline constexpr double kMinEngineTimeoutSeconds = 0.001;
inline constexpr double kMaxEngineTimeoutSeconds = 86400;
// Its default, unless one is given (EngineOptions, --engine-timeout, Python's engine_timeout=).
inline constexpr double kDefaultEngineTimeoutSeconds = 60;

struct EngineOptions {
  std::vector<std::string> urls;  // http://host:port[/prefix], one per engine
  double timeout_seconds = kDefaultEngineTimeoutSeconds;  // fail when no engine has answered for this long (in the range above)
  int max_in_flight = 4;          // requests each engine is sent at once (>= 1)
};

// Loads `dir` without its weights and connects to the engines (checking each that answers);
// `options.weights` is how sift serve engines must hold them (their --weights; auto and f32:
// the same bits); `options.threads` and `query_cache_bytes` do not apply (the engines have
// their own).
Labeler load_with_engines(const std::filesystem::path& dir, const EngineOptions& engines, const LoadOptions& options = {});

// Which arithmetic engines score with, for a record that must not mix two (a `sift batch`
// job): `exact` for sift serve replicas that proved this labeler by its fingerprint (the bits
// of scoring here); otherwise engines that cannot prove it (SGLang), checked by the model name
// they serve (and this labeler's vocabulary), whose scores are their own arithmetic.
struct EngineArithmetic {
  bool exact = true;
  std::string model;  // !exact: the model name the engines were checked to serve
};

struct LabelerOnEngines {
  Labeler labeler;
  EngineArithmetic arithmetic;
};

// load_with_engines, and which arithmetic its engines have: waits until one engine has passed
// its identity check (one run's engines are all of one kind), an Error when none has answered
// within `engines.timeout_seconds`.
LabelerOnEngines load_with_engines_of_known_kind(const std::filesystem::path& dir, const EngineOptions& engines,
                                                 const LoadOptions& options = {});

}  // namespace sift
