// Names of the weight storage choices (sift/weight_storage.h).
#include "sift/weight_storage.h"

#include <array>
#include <utility>

namespace sift {
namespace {

constexpr std::array<std::pair<WeightStorage, std::string_view>, 4> kNames = {
    {{WeightStorage::Auto, "auto"}, {WeightStorage::F32, "f32"}, {WeightStorage::BF16, "bf16"}, {WeightStorage::Q8, "q8"}}};

}  // namespace

std::optional<WeightStorage> parse_weight_storage(std::string_view name) {
  for (const auto& [storage, storage_name] : kNames)
    if (name == storage_name) return storage;
  return std::nullopt;
}

std::string_view weight_storage_name(WeightStorage storage) {
  for (const auto& [candidate, name] : kNames)
    if (candidate == storage) return name;
  return "?";
}

}  // namespace sift
