#include "tokenizer/tokenizer.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

#include "core/error.h"
#include "io/json_parse.h"
#include "tokenizer/hf_tokenizer.h"

namespace sift {

std::unique_ptr<Tokenizer> Tokenizer::from_json_string(std::string_view json, const std::string& where) {
  const nlohmann::json config = parse_json(json, where);
  try {
    return std::make_unique<HfTokenizer>(config, where);
  } catch (const nlohmann::json::exception& e) {  // a missing field or a field of the wrong type
    fail("{}: malformed tokenizer config: {}", where, e.what());
  }
}

std::unique_ptr<Tokenizer> Tokenizer::load(const std::filesystem::path& tokenizer_json) {
  std::ifstream file(tokenizer_json, std::ios::binary);
  if (!file) fail("cannot open tokenizer file {}", tokenizer_json.string());
  std::stringstream contents;
  contents << file.rdbuf();
  return from_json_string(contents.str(), tokenizer_json.string());
}

}  // namespace sift
