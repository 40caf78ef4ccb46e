#include "hub/model_source.h"

#include <optional>

#include "core/error.h"
#include "core/log.h"
#include "hub/hub_cache.h"
#include "hub/hub_download.h"
#include "hub/hub_id.h"

namespace sift::hub {
namespace {

namespace fs = std::filesystem;

// The Hub id `model` is, when rule 2 takes it as one.
std::optional<HubId> hub_id_of(const std::string& model) {
  std::error_code error;
  if (fs::exists(fs::symlink_status(model, error))) return std::nullopt;
  std::optional<HubId> id = parse_hub_id(model);
  if (!id) return std::nullopt;
  const std::string first = id->repo.substr(0, id->repo.find('/'));
  if (fs::is_directory(first, error)) return std::nullopt;  // models/typo: a path mistyped
  return id;
}

std::string listed(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

bool names_hub_model(const std::string& model) { return hub_id_of(model).has_value(); }

fs::path resolve_model_source(const std::string& model, bool show_progress) {
  const std::optional<HubId> id = hub_id_of(model);
  if (!id) return model;
  const fs::path cache = hub_cache_dir();
  const fs::path repo_dir = repo_cache_dir(cache, id->repo);
  const std::optional<std::string> commit = cached_commit(repo_dir, id->revision);
  std::vector<std::string> missing;
  if (commit) {
    const fs::path snapshot = repo_dir / "snapshots" / *commit;
    missing = missing_model_files(snapshot);
    if (missing.empty()) {
      spdlog::debug("{}: from the cache, {}", id->text(), snapshot.string());
      return snapshot;
    }
  }
  const HubSettings settings = hub_settings_from_environment();
  if (settings.offline) {
    if (!commit)
      fail("{}: HF_HUB_OFFLINE is set and the Hub cache has no snapshot of revision \"{}\" (looked in {}: no "
           "refs/{}); download it once online, or unset HF_HUB_OFFLINE",
           model, id->revision, repo_dir.string(), id->revision);
    fail("{}: HF_HUB_OFFLINE is set and the Hub cache's snapshot {} lacks {}; download it once online, or unset "
         "HF_HUB_OFFLINE",
         model, (repo_dir / "snapshots" / *commit).string(), listed(missing));
  }
  return download_model_files(cache, *id, settings, show_progress);
}

}  // namespace sift::hub
