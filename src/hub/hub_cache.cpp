#include "hub/hub_cache.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include "core/error.h"
#include "hub/hub_id.h"
#include "io/atomic_file.h"
#include "io/checkpoint.h"

namespace sift::hub {
namespace {

std::optional<std::string> hub_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

// "~/x" as $HOME/x, as huggingface_hub's os.path.expanduser does.
std::filesystem::path expand_home(const std::string& path) {
  if (path == "~" || path.starts_with("~/")) {
    const std::optional<std::string> home = hub_env("HOME");
    if (!home) fail("{}: HOME is not set, so \"~\" cannot be expanded", path);
    return std::filesystem::path(*home) / path.substr(std::min<size_t>(path.size(), 2));
  }
  return path;
}

}  // namespace

std::filesystem::path hf_home_dir() {
  if (const std::optional<std::string> home = hub_env("HF_HOME")) return expand_home(*home);
  if (const std::optional<std::string> xdg = hub_env("XDG_CACHE_HOME")) return expand_home(*xdg) / "huggingface";
  return expand_home("~/.cache") / "huggingface";
}

std::filesystem::path hub_cache_dir() {
  for (const char* name : {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"})
    if (const std::optional<std::string> dir = hub_env(name)) return expand_home(*dir);
  return hf_home_dir() / "hub";
}

std::filesystem::path repo_cache_dir(const std::filesystem::path& cache, const std::string& repo) {
  std::string folder = "models--" + repo;
  const size_t slash = folder.find('/');
  if (slash != std::string::npos) folder.replace(slash, 1, "--");
  return cache / folder;
}

std::optional<std::string> cached_commit(const std::filesystem::path& repo_dir, const std::string& revision) {
  if (is_commit_hash(revision)) return revision;
  std::ifstream in(repo_dir / "refs" / revision);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  if (!is_commit_hash(text)) return std::nullopt;
  return text;
}

void write_ref(const std::filesystem::path& repo_dir, const std::string& revision, const std::string& commit) {
  if (revision == commit) return;
  const std::filesystem::path ref = repo_dir / "refs" / revision;
  std::filesystem::create_directories(ref.parent_path());
  write_file_atomically(ref, commit);  // no newline: huggingface_hub writes the hash alone
}

std::vector<std::string> missing_model_files(const std::filesystem::path& snapshot) {
  std::vector<std::string> missing;
  for (const char* name : {"config.json", "tokenizer.json"})
    if (!std::filesystem::exists(snapshot / name)) missing.push_back(name);
  if (std::filesystem::exists(snapshot / "model.safetensors")) return missing;
  const std::filesystem::path index = snapshot / "model.safetensors.index.json";
  if (!std::filesystem::exists(index)) {
    missing.push_back("model.safetensors (or model.safetensors.index.json and its shards)");
    return missing;
  }
  for (const std::string& shard : index_shard_files(index))
    if (!std::filesystem::exists(snapshot / shard)) missing.push_back(shard);
  return missing;
}

}  // namespace sift::hub
