#pragma once
// Downloads a model's files from the Hugging Face Hub into the Hub cache (hub/hub_cache.h),
// as huggingface_hub's hf_hub_download does, over https (or http, for a local mirror):
//
//   HEAD {endpoint}/{org}/{name}/resolve/{revision}/{file}
//     -> X-Repo-Commit (the commit), X-Linked-Etag or ETag (the blob's name), X-Linked-Size
//        or Content-Length (its size); an LFS file (the weights) answers 302 with Location,
//        where its bytes are (a CDN), and its etag is their SHA-256. A relative redirect (a
//        renamed repository) is followed, 5 at most.
//   GET the file (or its Location), with "Range: bytes=N-" when N bytes of it are already in
//     blobs/<etag>.incomplete, into that file; then its size is checked, an LFS file's SHA-256
//     against its etag (a mismatch deletes it and is an Error), and it becomes blobs/<etag>,
//     linked from snapshots/<commit>/<file>.
//
// A transfer cut short is resumed at once (3 tries in all) and, failing that, by the next
// run. Authorization: Bearer <token> goes to the endpoint only (never to the CDN); a 401 or
// 403 is an Error that says the model is gated or private and names HF_TOKEN. Every request
// has a connect and a read timeout; sizes over 1 TiB are refused.
#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "hub/hub_id.h"

namespace sift::hub {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT, without a trailing '/'
  std::optional<std::string> token;                 // HF_TOKEN, else the file huggingface-cli login writes
  bool offline = false;                             // HF_HUB_OFFLINE (1, ON, YES or TRUE)
  std::chrono::seconds connect_timeout{10};
  std::chrono::seconds read_timeout{60};  // between two reads of an answer
};

// The settings the environment gives: HF_ENDPOINT, HF_TOKEN (else the file HF_TOKEN_PATH,
// else $HF_HOME/token), HF_HUB_OFFLINE.
HubSettings hub_settings_from_environment();

// Downloads what sift needs of `id` that the cache lacks: config.json, tokenizer.json,
// sift.json when the repository has one, and model.safetensors or
// model.safetensors.index.json with its shards; writes refs/<revision>. Returns the snapshot
// folder. `show_progress`: a status line per file on stderr.
std::filesystem::path download_model_files(const std::filesystem::path& cache, const HubId& id,
                                           const HubSettings& settings, bool show_progress);

}  // namespace sift::hub
