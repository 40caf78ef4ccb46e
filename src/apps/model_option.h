#pragma once
// --model of every command that loads a model: a labeler directory, or a Hugging Face Hub
// model `org/name[@revision]` resolved through the Hub cache and downloaded into it when it is
// not there (hub/model_source.h; docs/models.md). Download progress shows on a terminal
// unless --quiet.
#include <string>

namespace sift::apps {

// The directory `--model` stands for (as given when it is one).
std::string model_directory(const std::string& model);

// Whether `--model` names a Hub model rather than a directory.
bool is_hub_model(const std::string& model);

}  // namespace sift::apps
