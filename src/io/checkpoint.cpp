#include "io/checkpoint.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "core/error.h"
#include "io/json_parse.h"

namespace sift {
namespace {

using nlohmann::json;

// weight_map of model.safetensors.index.json: tensor name -> shard file name.
std::map<std::string, std::string> read_weight_map(const std::filesystem::path& index_path) {
  std::ifstream in(index_path);
  if (!in) fail("{}: cannot open", index_path.string());
  json index = parse_json(in, index_path.string());
  if (!index.is_object() || !index.contains("weight_map") || !index["weight_map"].is_object())
    fail("{}: missing \"weight_map\" object", index_path.string());
  std::map<std::string, std::string> weight_map;
  for (auto it = index["weight_map"].begin(); it != index["weight_map"].end(); ++it) {
    if (!it.value().is_string())
      fail("{}: weight_map entry \"{}\" must be a file name string", index_path.string(), it.key());
    const std::string shard = it.value().get<std::string>();
    const std::filesystem::path shard_path(shard);
    if (shard.empty() || shard == "." || shard == ".." || shard_path.is_absolute() || shard_path.has_parent_path())
      fail("{}: weight_map entry \"{}\" names \"{}\", which is not a file name inside the model directory",
           index_path.string(), it.key(), shard);
    weight_map.emplace(it.key(), shard);
  }
  if (weight_map.empty()) fail("{}: weight_map is empty", index_path.string());
  return weight_map;
}

bool matches_ignorable(const std::string& name, const std::vector<std::string>& ignorable) {
  for (const std::string& pattern : ignorable) {
    if (!pattern.empty() && pattern[0] == '*') {
      const std::string_view suffix = std::string_view(pattern).substr(1);
      if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
    } else if (name == pattern) {
      return true;
    }
  }
  return false;
}

// "a", "b", "c" (at most `limit` names, then "and N more").
std::string list_names(const std::vector<std::string>& names, size_t limit = 10) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) out += (i ? ", \"" : "\"") + names[i] + "\"";
  if (names.size() > limit) out += fmt::format(" and {} more", names.size() - limit);
  return out;
}

}  // namespace

std::vector<std::string> index_shard_files(const std::filesystem::path& index_path) {
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : read_weight_map(index_path)) shards.insert(shard);
  return {shards.begin(), shards.end()};
}

Checkpoint Checkpoint::from_file(SafetensorsFile file, const std::filesystem::path& dir) {
  Checkpoint checkpoint;
  checkpoint.dir_ = dir;
  checkpoint.files_.push_back(std::move(file));
  for (const TensorInfo& tensor : checkpoint.files_[0].tensors())
    checkpoint.tensors_.emplace(tensor.name, Location{0, &tensor});
  return checkpoint;
}

Checkpoint Checkpoint::open(const std::filesystem::path& dir) {
  const auto single = dir / "model.safetensors";
  const auto index_path = dir / "model.safetensors.index.json";
  if (std::filesystem::exists(single)) return from_file(SafetensorsFile::open(single), dir);
  Checkpoint checkpoint;
  checkpoint.dir_ = dir;
  if (!std::filesystem::exists(index_path))
    fail("{}: no model.safetensors or model.safetensors.index.json in the model directory", dir.string());

  const auto weight_map = read_weight_map(index_path);
  std::map<std::string, size_t> shard_file;  // shard name -> index into files_
  for (const auto& [name, shard] : weight_map) {
    if (shard_file.count(shard)) continue;
    const auto shard_path = dir / shard;
    if (!std::filesystem::exists(shard_path))
      fail("{}: shard \"{}\" (holding tensor \"{}\") does not exist", index_path.string(), shard, name);
    shard_file.emplace(shard, checkpoint.files_.size());
    checkpoint.files_.push_back(SafetensorsFile::open(shard_path));
  }
  for (const auto& [name, shard] : weight_map) {
    const size_t file = shard_file.at(shard);
    const TensorInfo* tensor = checkpoint.files_[file].find(name);
    if (!tensor) fail("{}: tensor \"{}\" is mapped to shard \"{}\", which does not hold it", index_path.string(), name, shard);
    checkpoint.tensors_.emplace(name, Location{file, tensor});
  }
  for (const auto& [shard, file] : shard_file)
    for (const TensorInfo& tensor : checkpoint.files_[file].tensors()) {
      auto it = weight_map.find(tensor.name);
      if (it == weight_map.end() || it->second != shard)
        fail("{}: shard \"{}\" holds tensor \"{}\", which the index maps {}", index_path.string(), shard, tensor.name,
             it == weight_map.end() ? std::string("nowhere") : "to \"" + it->second + "\"");
    }
  return checkpoint;
}

std::vector<std::string> Checkpoint::names() const {
  std::vector<std::string> out;
  out.reserve(tensors_.size());
  for (const auto& [name, location] : tensors_) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

bool Checkpoint::contains(std::string_view name) const { return tensors_.count(std::string(name)) > 0; }

const Checkpoint::Location& Checkpoint::locate(std::string_view name) const {
  auto it = tensors_.find(std::string(name));
  if (it == tensors_.end()) fail("{}: checkpoint has no tensor \"{}\"", dir_.string(), name);
  return it->second;
}

const TensorInfo& Checkpoint::info(std::string_view name) const { return *locate(name).info; }

void Checkpoint::read_f32_into(std::string_view name, const std::vector<int64_t>& expected_shape,
                               std::span<float> dst) const {
  const Location& location = locate(name);
  if (location.info->shape != expected_shape)
    fail("{}: tensor \"{}\" has shape {}, expected {}", dir_.string(), name, shape_to_string(location.info->shape),
         shape_to_string(expected_shape));
  if (static_cast<int64_t>(dst.size()) != location.info->n_elements())
    fail("{}: tensor \"{}\" has {} elements, the destination holds {}", dir_.string(), name,
         location.info->n_elements(), dst.size());
  read_f32_range(name, 0, dst);
  files_[location.file].release(*location.info);
}

void Checkpoint::read_f32_range(std::string_view name, int64_t first, std::span<float> dst) const {
  const TensorInfo& tensor = *locate(name).info;
  const auto n = static_cast<int64_t>(dst.size());
  if (first < 0 || n > tensor.n_elements() - first)
    fail("{}: tensor \"{}\" has {} elements, elements [{}, {}) were asked for", dir_.string(), name,
         tensor.n_elements(), first, first + n);
  const size_t bad = convert_to_f32(tensor.dtype, tensor.bytes.data() + first * dtype_size(tensor.dtype), dst.data(),
                                    dst.size());
  if (bad < dst.size())
    fail("{}: tensor \"{}\" holds {} at element {} (weights must be finite)", dir_.string(), name, dst[bad],
         first + static_cast<int64_t>(bad));
}

std::vector<float> Checkpoint::read_f32(std::string_view name, const std::vector<int64_t>& expected_shape) const {
  const Location& location = locate(name);
  if (location.info->shape != expected_shape)
    fail("{}: tensor \"{}\" has shape {}, expected {}", dir_.string(), name, shape_to_string(location.info->shape),
         shape_to_string(expected_shape));
  std::vector<float> out(static_cast<size_t>(location.info->n_elements()));
  read_f32_into(name, expected_shape, out);
  return out;
}

void Checkpoint::release(std::string_view name) const {
  const Location& location = locate(name);
  files_[location.file].release(*location.info);
}

void Checkpoint::check_names(const std::vector<std::string>& expected, const std::vector<std::string>& ignorable) const {
  std::vector<std::string> missing;
  for (const std::string& name : expected)
    if (!contains(name)) missing.push_back(name);
  std::sort(missing.begin(), missing.end());
  if (!missing.empty())
    fail("{}: checkpoint is missing {} tensor(s): {}", dir_.string(), missing.size(), list_names(missing));
  const std::set<std::string> expected_set(expected.begin(), expected.end());
  std::vector<std::string> unexpected;
  for (const std::string& name : names())
    if (!expected_set.count(name) && !matches_ignorable(name, ignorable)) unexpected.push_back(name);
  if (!unexpected.empty())
    fail("{}: checkpoint has {} unexpected tensor(s) this architecture does not use: {}", dir_.string(),
         unexpected.size(), list_names(unexpected));
}

}  // namespace sift
