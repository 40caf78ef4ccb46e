// sift::load_with_engines (sift/engines.h): a labeler loaded without its weights whose engines
// are RemoteEngines on one shared Fleet, its engines' identities checked against the labeler
// directory first.

#include "api/labeler_of.h"
#include "core/error.h"
#include "io/content_hash.h"
#include "remote/fleet.h"
#include "remote/remote_engine.h"
#include "sift/engines.h"
#include "scoring/self_test.h"

namespace sift {
namespace remote {

namespace {

// The name sift serve gives the model of `dir`: the directory's name.
std::string model_name(const std::filesystem::path& dir) {
  std::filesystem::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // "models/labeler/"
  const std::string name = normal.filename().string();
  return name.empty() ? dir.string() : name;
}

std::vector<Endpoint> endpoints_of(const EngineOptions& engines) {
  if (!(engines.timeout_seconds >= kMinEngineTimeoutSeconds && engines.timeout_seconds <= kMaxEngineTimeoutSeconds))
    fail_option("--engine-timeout must be a number of seconds in [{}, {}], got {}", kMinEngineTimeoutSeconds,
                kMaxEngineTimeoutSeconds, engines.timeout_seconds);
  if (engines.max_in_flight < 1) fail_option("engines' max_in_flight must be at least 1, got {}", engines.max_in_flight);
  std::vector<Endpoint> endpoints;
  for (const std::string& url : engines.urls) {
    Endpoint endpoint = parse_endpoint(url);
    for (const Endpoint& other : endpoints)
      if (other.url == endpoint.url) fail_option("--engine: {} is named twice", endpoint.url);
    endpoints.push_back(std::move(endpoint));
  }
  if (endpoints.empty()) fail_option("--engine: no engine given");
  return endpoints;
}

// How many calls' worth of requests a fleet of `engines` keeps in flight
// (LoadedLabeler::load_without_weights): two per engine.
int64_t calls_in_flight(const EngineOptions& engines) { return 2 * static_cast<int64_t>(engines.urls.size()); }

struct Connected {
  std::shared_ptr<Fleet> fleet;
  std::string model_name;
};

// The labeler's self-test probes as each engine gets them (remote/fleet.h): one /v1/score
// request per probe, built as RemoteEngine builds a row's (tokenized here, P(yes) read as the
// softmax over [yes, no]); judged bitwise against an engine that proved its labeler with
// f32/auto weights, with the format's tolerance with bf16/q8, with "engine"'s against one that
// cannot prove it (SGLang).
EngineProbes engine_probes(const LoadedLabeler& loaded, const std::string& model_name, WeightStorage weights) {
  const std::optional<SelfTest>& self_test = loaded.artifact().self_test;
  if (!self_test) {
    warn_no_self_test(loaded.where());
    return {};
  }
  EngineProbes probes;
  for (size_t p = 0; p < self_test->probes.size(); ++p) {
    const SelfTestProbe& probe = self_test->probes[p];
    const TokenizedRow row = loaded.tokenize(probe.query, probe.items);
    if (!row.error.empty()) fail("the labeler ({}) fails its self-test: probe {} cannot be encoded: {}", loaded.where(), p + 1, row.error);
    ScoringJob job;
    job.readout = Readout::yes_no(loaded.answer_ids());
    job.query = row.query;
    job.items = row.items;
    int64_t tokens = static_cast<int64_t>(job.query.size());
    for (const TokenIds& item : job.items) tokens += static_cast<int64_t>(item.size());
    const ItemRange all{0, static_cast<int64_t>(job.items.size())};
    probes.calls.push_back({score_request_body(job, all, model_name), tokens, job.items.size(), 2});
  }
  probes.judge = [self_test = *self_test, weights](const std::vector<ItemScores>& answers, bool exact,
                                                   const std::string& url) {
    std::vector<std::vector<double>> measured;
    for (const ItemScores& answer : answers) {
      std::vector<double>& row = measured.emplace_back();
      for (const std::vector<double>& item : answer) row.push_back(item.at(0));
    }
    return compare_probes(self_test, measured, exact ? probe_arithmetic(weights) : ProbeArithmetic::Engine,
                          fmt::format("engine {}", url));
  };
  return probes;
}

// `weights`: how sift serve engines must hold the labeler's (their --weights; auto and f32 are
// the same bits).
Connected connect_fleet(const std::filesystem::path& dir, const LoadedLabeler& loaded, const EngineOptions& engines,
                        WeightStorage weights) {
  std::vector<Endpoint> endpoints = endpoints_of(engines);
  const LabelerIdentity identity{.model_name = model_name(dir),
                                 .fingerprint = artifact_fingerprint(dir),
                                 .where = dir.string(),
                                 .vocab_size = loaded.config().vocab_size,
                                 .yes = loaded.answer_ids().yes,
                                 .no = loaded.answer_ids().no,
                                 .weights = std::string(weight_storage_name(weights))};
  FleetSettings settings;
  settings.timeout = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(engines.timeout_seconds));
  settings.max_in_flight = engines.max_in_flight;
  auto fleet = std::make_shared<Fleet>(std::move(endpoints), settings, identity,
                                       engine_probes(loaded, identity.model_name, weights));
  fleet->check_engines();
  return {std::move(fleet), identity.model_name};
}

EngineMaker engine_maker(const Connected& connected) {
  return [fleet = connected.fleet, name = connected.model_name] { return std::make_unique<RemoteEngine>(fleet, name); };
}

// The labeler without its weights, its engines connected (a bad URL or option is an
// OptionError before anything is read).
std::pair<std::unique_ptr<LoadedLabeler>, Connected> load_and_connect(const std::filesystem::path& dir,
                                                                      const EngineOptions& engines,
                                                                      WeightStorage weights) {
  endpoints_of(engines);
  std::unique_ptr<LoadedLabeler> loaded = LoadedLabeler::load_without_weights(dir, calls_in_flight(engines));
  Connected connected = connect_fleet(dir, *loaded, engines, weights);
  return {std::move(loaded), std::move(connected)};
}

}  // namespace
}  // namespace remote

Labeler load_with_engines(const std::filesystem::path& dir, const EngineOptions& engines, const LoadOptions& options) {
  auto [loaded, connected] = remote::load_and_connect(dir, engines, options.weights);
  return labeler_of(std::move(loaded), options, remote::engine_maker(connected));
}

LabelerOnEngines load_with_engines_of_known_kind(const std::filesystem::path& dir, const EngineOptions& engines,
                                                 const LoadOptions& options) {
  auto [loaded, connected] = remote::load_and_connect(dir, engines, options.weights);
  const bool exact = connected.fleet->exact();
  const EngineArithmetic arithmetic{.exact = exact, .model = exact ? "" : connected.model_name};
  return {labeler_of(std::move(loaded), options, remote::engine_maker(connected)), arithmetic};
}

}  // namespace sift
