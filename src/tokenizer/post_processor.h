#pragma once
// Post-processors of tokenizer.json ("post_processor") for a single sequence: the ids put
// before and after the text when add_special_tokens is true. TemplateProcessing (its
// "single" template), ByteLevel (offsets only: adds nothing), Sequence, RobertaProcessing
// and BertProcessing (<cls> $A <sep>).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace sift {

struct SpecialIds {
  std::vector<int32_t> prefix;  // before the text
  std::vector<int32_t> suffix;  // after the text
};

// The ids a post-processor config adds around a single sequence; null json adds none.
// Throws Error naming an unknown type and `where`.
SpecialIds make_post_processor(const nlohmann::json& json, const std::string& where,
                               int sequence_depth = 0);

}  // namespace sift
