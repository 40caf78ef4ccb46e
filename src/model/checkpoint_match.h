#pragma once
// Checks a checkpoint's tensor index against a config before any weight is read or
// allocated: every tensor of checkpoint_layout(config) is present with exactly its shape,
// and the checkpoint holds nothing else but ignorable names. The index comes from the
// validated safetensors headers (each shape's bytes are inside the file), so a config that
// passes describes real tensors: sizes derived from it match the bytes that back them.
#include <vector>

#include "io/checkpoint.h"
#include "model/checkpoint_layout.h"

namespace sift {

// Errors: the missing or unexpected names (Checkpoint::check_names), or "<dir>: tensor X has
// shape [a, b], config.json gives [c, d] ([num_attention_heads x head_dim, hidden_size])".
void check_checkpoint_matches(const Checkpoint& checkpoint, const std::vector<TensorSpec>& layout,
                              const ModelConfig& config);

}  // namespace sift
