// sift::load_with_engines (sift/engines.h): a labeler loaded without its weights whose
// contexts are RemoteEngines on one shared Fleet.
#include "sift/engines.h"

#include <cmath>

#include "api/labeler_of.h"
#include "core/error.h"
#include "io/content_hash.h"
#include "remote/fleet.h"
#include "remote/remote_engine.h"

namespace sift {

Labeler load_with_engines(const std::filesystem::path& dir, const EngineOptions& engines, const LoadOptions& options) {
  if (!(engines.timeout_seconds > 0) || !std::isfinite(engines.timeout_seconds))
    fail_option("--engine-timeout must be a positive number of seconds, got {}", engines.timeout_seconds);
  if (engines.max_in_flight < 1) fail_option("engines' max_in_flight must be at least 1, got {}", engines.max_in_flight);
  std::vector<remote::Endpoint> endpoints;
  for (const std::string& url : engines.urls) {
    remote::Endpoint endpoint = remote::parse_endpoint(url);
    for (const remote::Endpoint& other : endpoints)
      if (other.url == endpoint.url) fail_option("--engine: {} is named twice", endpoint.url);
    endpoints.push_back(std::move(endpoint));
  }
  if (endpoints.empty()) fail_option("--engine: no engine given");

  // Each engine keeps about two forward calls' worth of requests in flight.
  const auto calls_in_flight = static_cast<int64_t>(2 * endpoints.size());
  std::unique_ptr<LoadedLabeler> loaded = LoadedLabeler::load_without_weights(dir, calls_in_flight);
  std::filesystem::path normal = dir.lexically_normal();
  if (normal.filename().empty()) normal = normal.parent_path();  // "models/labeler/"
  const std::string name = normal.filename().string();  // as sift serve names its model
  remote::LabelerIdentity identity{.model_name = name.empty() ? dir.string() : name,
                                   .fingerprint = artifact_fingerprint(dir),
                                   .where = dir.string(),
                                   .vocab_size = loaded->config().vocab_size,
                                   .yes = loaded->answer_ids().yes,
                                   .no = loaded->answer_ids().no};
  remote::FleetSettings settings;
  settings.timeout = std::chrono::duration_cast<remote::Duration>(std::chrono::duration<double>(engines.timeout_seconds));
  settings.max_in_flight = engines.max_in_flight;
  auto fleet = std::make_shared<remote::Fleet>(std::move(endpoints), settings, identity);
  fleet->check_engines();
  return labeler_of(std::move(loaded), options,
                    [fleet, name = identity.model_name] { return std::make_unique<remote::RemoteEngine>(fleet, name); });
}

}  // namespace sift
