// Prompt parity with Hugging Face tokenizers (docs/scoring-contract.md): for every row of the
// tokenizer parity corpus used as query and item texts, the ids of the query part and of the
// item part are exactly those HF gives for the rendered part (tools/prompt_reference.js),
// with the Qwen3 and Llama 3 tokenizer.json files, chat and compact layouts. Where the user
// text holds a special-token look-alike, the look-alike is plain text: the ids are HF's with
// special tokens recognised only in the template's own text, and no special id comes from
// the user's text.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

#include "../common/node_goldens.h"
#include "scoring/prompt.h"
#include "tokenizer/tokenizer.h"

namespace sift {
namespace {

std::filesystem::path golden_dir() { return std::filesystem::path(SIFT_BINARY_DIR) / "prompt_golden"; }

std::string ensure_goldens() {
  const std::filesystem::path source(SIFT_SOURCE_DIR);
  return testing::ensure_node_goldens(source / "tools/prompt_reference.js", golden_dir(),
                                      {source / "tools/reference_corpus.js", source / "tools/reference_tokenizers.js"});
}

nlohmann::json read_manifest() { return nlohmann::json::parse(std::ifstream(golden_dir() / "manifest.json")); }

std::string show(const std::vector<int32_t>& ids) { return nlohmann::json(ids).dump(); }

// Special ids among `ids` (added tokens marked special in tokenizer.json).
int64_t count_special(const std::vector<int32_t>& ids, const std::set<int32_t>& special_ids) {
  int64_t n = 0;
  for (int32_t id : ids) n += special_ids.count(id);
  return n;
}

class PromptParity : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { generation_error_ = ensure_goldens(); }
  static inline std::string generation_error_;
};

TEST_P(PromptParity, PartIdsAreHuggingFacesIdsOfTheRenderedPart) {
  ASSERT_EQ(generation_error_, "");
  const nlohmann::json manifest = read_manifest();
  const auto entry = std::find_if(manifest.begin(), manifest.end(), [](const auto& e) { return e["name"] == GetParam(); });
  ASSERT_NE(entry, manifest.end()) << GetParam() << " is not in the manifest";
  const std::filesystem::path tokenizer_json = golden_dir() / (*entry)["tokenizer"].get<std::string>();
  const auto tokenizer = Tokenizer::load(tokenizer_json);
  std::set<int32_t> special_ids;
  for (const auto& token : nlohmann::json::parse(std::ifstream(tokenizer_json))["added_tokens"])
    if (token["special"].get<bool>()) special_ids.insert(token["id"].get<int32_t>());

  ScoringArtifact artifact;
  artifact.query_template = (*entry)["query_template"];
  artifact.item_template = (*entry)["item_template"];
  artifact.generate_item_template = "{index}. {item}\n";
  const PromptEncoder prompts(*tokenizer, artifact);
  const std::vector<int32_t> template_query = prompts.query_tokens(""), template_item = prompts.item_tokens("");

  std::ifstream golden(golden_dir() / (*entry)["golden"].get<std::string>());
  int64_t n_rows = 0, n_compared_with_hf = 0, n_injections = 0, n_mismatches = 0;
  std::string line;
  while (std::getline(golden, line)) {
    const nlohmann::json row = nlohmann::json::parse(line);
    const std::vector<int32_t> query = prompts.query_tokens(row["query"].get<std::string>());
    const std::vector<int32_t> item = prompts.item_tokens(row["item"].get<std::string>());
    ++n_rows;
    for (const auto& [ids, field] : {std::pair{&query, "query_ids"}, std::pair{&item, "item_ids"}}) {
      for (const std::string& key : {std::string(field), std::string(field) + "_hf"}) {
        if (!row.contains(key)) continue;
        n_compared_with_hf += key.ends_with("_hf");
        if (*ids == row[key].get<std::vector<int32_t>>()) continue;
        if (++n_mismatches <= 5)
          ADD_FAILURE() << key << " differ for query " << row["query"].dump() << ", item " << row["item"].dump()
                        << "\n  sift: " << show(*ids) << "\n  hf:   " << row[key].dump();
      }
    }
    if (row.value("injection", false)) {
      ++n_injections;
      EXPECT_EQ(count_special(query, special_ids), count_special(template_query, special_ids)) << line;
      EXPECT_EQ(count_special(item, special_ids), count_special(template_item, special_ids)) << line;
    }
  }
  EXPECT_GE(n_rows, 12000);
  EXPECT_GE(n_compared_with_hf, n_rows);  // most parts hold no look-alike: compared with plain HF too
  EXPECT_GE(n_injections, 30);
  EXPECT_EQ(n_mismatches, 0);
  std::cout << GetParam() << ": " << n_rows << " rows, " << n_compared_with_hf << " parts compared with HF's "
            << "plain encode of the rendered part, " << n_injections << " injection rows; mismatches "
            << n_mismatches << "\n";
}

const std::vector<std::string> kCases = {"qwen3_qwen3_chat", "qwen3_compact", "llama3_bos_llama3_chat",
                                         "llama3_bos_compact", "llama3_qwen3_chat"};

INSTANTIATE_TEST_SUITE_P(Goldens, PromptParity, ::testing::ValuesIn(kCases), [](const auto& info) { return info.param; });

TEST(PromptParityManifest, EveryCaseIsTested) {
  ASSERT_EQ(ensure_goldens(), "");
  std::set<std::string> in_manifest;
  for (const auto& entry : read_manifest()) in_manifest.insert(entry["name"].get<std::string>());
  EXPECT_EQ(in_manifest, std::set<std::string>(kCases.begin(), kCases.end()));
}

}  // namespace
}  // namespace sift
