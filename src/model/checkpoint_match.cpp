#include "model/checkpoint_match.h"

#include "core/error.h"

namespace sift {

void check_checkpoint_matches(const Checkpoint& checkpoint, const std::vector<TensorSpec>& layout,
                              const ModelConfig& config) {
  std::vector<std::string> expected;
  expected.reserve(layout.size());
  for (const TensorSpec& spec : layout) expected.push_back(spec.name);
  checkpoint.check_names(expected, ignorable_tensor_names(config));
  for (const TensorSpec& spec : layout) {
    const TensorInfo& info = checkpoint.info(spec.name);
    if (info.shape != spec.shape)
      fail("{}: tensor \"{}\" has shape {}, config.json gives {} ({})", checkpoint.dir().string(), spec.name,
           shape_to_string(info.shape), shape_to_string(spec.shape), spec.shape_fields);
  }
}

}  // namespace sift
