#pragma once
// Token ids read from JSON (tokenizer.json vocabularies, added tokens, post-processor ids,
// `sift detokenize` input). sift keeps ids as int32 and Hugging Face as u32, so an id is an
// integer in [0, 2^31 - 1]; anything else is an Error naming the value and where it is,
// never a silent wrap.
#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace sift {

// True for an integer in [0, 2^31 - 1].
bool is_token_id(const nlohmann::json& value);

// The id; an Error "<where> is <value>, outside the token id range [0, 2147483647]" (or
// "must be an integer") otherwise. `where` names the value, e.g. "tokenizer.json: model:
// vocab[\"hello\"]".
int32_t token_id_from_json(const nlohmann::json& value, const std::string& where);

// A JSON list of ids; element i is named "<where>[i]".
std::vector<int32_t> token_ids_from_json(const nlohmann::json& list, const std::string& where);

}  // namespace sift
