#pragma once
// What `--model` names: a local directory, or a Hugging Face Hub model.
//
//   1. A path that exists is used as it is (a directory that exists always wins).
//   2. Else `org/name[@revision]` (hub/hub_id.h) whose first part is not an existing folder
//      is a Hub id: the revision resolves in the cache (hub/hub_cache.h) through refs/ (or
//      is a commit) to snapshots/<commit>/, which is used without any network when it holds
//      every file sift needs; else, unless HF_HUB_OFFLINE is set (then an Error naming the
//      cache folder and what it lacks), the files are downloaded (hub/hub_download.h).
//   3. Else the text is a path that does not exist: the loaders say so.
#include <filesystem>
#include <string>

namespace sift::hub {

// The model directory `--model` stands for. `show_progress`: download progress on stderr.
std::filesystem::path resolve_model_source(const std::string& model, bool show_progress);

// Whether `--model` would be taken as a Hub id (rule 2 above, without looking at the cache).
bool names_hub_model(const std::string& model);

}  // namespace sift::hub
