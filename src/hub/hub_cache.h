#pragma once
// The Hugging Face Hub cache, laid out as huggingface_hub lays it (so either tool reads what
// the other wrote):
//
//   <cache>/models--<org>--<name>/
//     refs/<revision>              the commit a branch or tag stood for when last resolved
//     blobs/<etag>                 each file's bytes, named by its etag: the SHA-256 of an LFS
//                                  file (the weights), the git blob hash of any other
//     blobs/<etag>.incomplete      a download under way or cut short (resumed from its size)
//     snapshots/<commit>/<file>    a symbolic link to ../../blobs/<etag>
//     .no_exist/<commit>/<file>    an empty file: the Hub said the commit has no such file
//   <cache>/.locks/models--<org>--<name>/<etag>.lock   held while the blob is downloaded
//
// <cache> is HF_HUB_CACHE, else HUGGINGFACE_HUB_CACHE, else $HF_HOME/hub, else
// $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sift::hub {

std::filesystem::path hub_cache_dir();

// $HF_HOME, else $XDG_CACHE_HOME/huggingface, else ~/.cache/huggingface (where
// `huggingface-cli login` keeps its token).
std::filesystem::path hf_home_dir();

// <cache>/models--org--name for "org/name".
std::filesystem::path repo_cache_dir(const std::filesystem::path& cache, const std::string& repo);

// The commit `revision` stands for in the cache: the revision itself when it is a commit hash,
// else what refs/<revision> holds; nullopt when refs has no such file (or it holds no commit).
std::optional<std::string> cached_commit(const std::filesystem::path& repo_dir, const std::string& revision);

// refs/<revision> := commit, unless the revision is the commit itself.
void write_ref(const std::filesystem::path& repo_dir, const std::string& revision, const std::string& commit);

// The files sift needs that a snapshot folder lacks (an empty list: it can be loaded as it
// is): config.json, tokenizer.json, and model.safetensors or model.safetensors.index.json
// with every shard it names. sift.json is used when it is there, never required.
std::vector<std::string> missing_model_files(const std::filesystem::path& snapshot);

}  // namespace sift::hub
