// Parity with Hugging Face tokenizers: ids for every golden string must be identical, with
// and without the post-processor's special tokens, with special-token text recognised and
// taken as plain text; decode must match HF's decode, and give back the input exactly for
// the lossless (byte-level, no normalizer) tokenizers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "golden.h"
#include "tokenizer/tokenizer.h"

namespace sift {
namespace {

struct Golden {
  std::string text;
  std::vector<int32_t> ids_special, ids_plain, ids_user;
  std::string decoded, decoded_skip;
};

nlohmann::json read_manifest() {
  std::ifstream file(testing::golden_dir() / "manifest.json");
  return nlohmann::json::parse(file);
}

std::vector<Golden> read_goldens(const std::filesystem::path& path) {
  std::vector<Golden> goldens;
  std::ifstream file(path);
  std::string line;
  while (std::getline(file, line)) {
    const auto json = nlohmann::json::parse(line);
    goldens.push_back({json["text"], json["ids_special"], json["ids_plain"], json["ids_user"], json["decoded"],
                       json["decoded_skip"]});
  }
  return goldens;
}

std::string show(const std::vector<int32_t>& ids) { return nlohmann::json(ids).dump(); }

// Counts mismatches of one encoding mode and reports the first few.
size_t count_mismatches(const std::vector<Golden>& goldens, const std::vector<std::vector<int32_t>>& actual,
                        std::vector<int32_t> Golden::*expected, const std::string& mode) {
  size_t n_mismatches = 0;
  for (size_t i = 0; i < goldens.size(); ++i) {
    if (actual[i] == goldens[i].*expected) continue;
    if (++n_mismatches <= 5) {
      ADD_FAILURE() << mode << " mismatch for " << nlohmann::json(goldens[i].text).dump() << "\n  sift: " << show(actual[i])
                    << "\n  hf:   " << show(goldens[i].*expected);
    }
  }
  return n_mismatches;
}

class TokenizerParity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { generation_error_ = testing::ensure_goldens(); }
  static inline std::string generation_error_;
};

TEST_P(TokenizerParity, IdsAndDecodeMatchHuggingFace) {
  ASSERT_EQ(generation_error_, "");
  const auto manifest = read_manifest();
  const auto entry = std::find_if(manifest.begin(), manifest.end(), [](const auto& e) { return e["name"] == GetParam(); });
  ASSERT_NE(entry, manifest.end()) << GetParam() << " is not in the manifest";
  const auto dir = testing::golden_dir();
  const auto tokenizer = Tokenizer::load(dir / (*entry)["tokenizer"].get<std::string>());
  const auto goldens = read_goldens(dir / (*entry)["golden"].get<std::string>());
  if (GetParam() == "qwen3" || GetParam() == "llama3") {
    ASSERT_GE(goldens.size(), 10000u);
  }

  std::vector<std::string> texts;
  for (const auto& golden : goldens) texts.push_back(golden.text);
  const auto special = tokenizer->encode_batch(texts, {true, SpecialText::Recognise});
  const auto plain = tokenizer->encode_batch(texts, {false, SpecialText::Recognise});
  const auto user = tokenizer->encode_batch(texts, {true, SpecialText::AsPlainText});
  const size_t bad_special = count_mismatches(goldens, special, &Golden::ids_special, "ids_special");
  const size_t bad_plain = count_mismatches(goldens, plain, &Golden::ids_plain, "ids_plain");
  const size_t bad_user = count_mismatches(goldens, user, &Golden::ids_user, "ids_user");

  size_t bad_decode = 0, bad_roundtrip = 0;
  const bool lossless = (*entry)["lossless"].get<bool>();
  for (size_t i = 0; i < goldens.size(); ++i) {
    const std::string decoded = tokenizer->decode(goldens[i].ids_special, false);
    const std::string decoded_skip = tokenizer->decode(goldens[i].ids_special, true);
    if (decoded != goldens[i].decoded || decoded_skip != goldens[i].decoded_skip) {
      if (++bad_decode <= 5) {
        ADD_FAILURE() << "decode mismatch for " << show(goldens[i].ids_special) << "\n  sift: "
                      << nlohmann::json(decoded).dump() << " / " << nlohmann::json(decoded_skip).dump()
                      << "\n  hf:   " << nlohmann::json(goldens[i].decoded).dump() << " / "
                      << nlohmann::json(goldens[i].decoded_skip).dump();
      }
    }
    if (lossless && tokenizer->decode(tokenizer->encode(goldens[i].text, {false}), false) != goldens[i].text &&
        ++bad_roundtrip <= 5) {
      ADD_FAILURE() << "decode(encode(x)) != x for " << nlohmann::json(goldens[i].text).dump();
    }
  }
  std::cout << GetParam() << ": " << goldens.size() << " strings; mismatches: ids_special " << bad_special
            << ", ids_plain " << bad_plain << ", ids_user " << bad_user << ", decode " << bad_decode
            << ", roundtrip " << bad_roundtrip << "\n";
}

const std::vector<std::string> kTokenizers = {
    "qwen3", "llama3", "llama3_bos", "qwen3_gpt2_flags", "qwen3_normalizers", "qwen3_split_removed",
    "qwen3_split_merged_prev", "qwen3_split_merged_next", "qwen3_split_contiguous", "qwen3_split_invert",
    "qwen3_split_invert_removed", "qwen3_digits_whitespace", "qwen3_digits_whitespacesplit", "sp_bytefallback",
    "sp_metaspace", "sp_metaspace_legacy"};

INSTANTIATE_TEST_SUITE_P(Goldens, TokenizerParity, ::testing::ValuesIn(kTokenizers),
                         [](const auto& info) { return info.param; });

TEST(TokenizerParityManifest, EveryGoldenTokenizerIsTested) {
  ASSERT_EQ(testing::ensure_goldens(), "");
  std::set<std::string> in_manifest;
  for (const auto& entry : read_manifest()) in_manifest.insert(entry["name"].get<std::string>());
  EXPECT_EQ(in_manifest, std::set<std::string>(kTokenizers.begin(), kTokenizers.end()));
}

}  // namespace
}  // namespace sift
