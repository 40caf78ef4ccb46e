// `sift synth` end to end through the binary: files, summary, determinism, argument errors.
// Skipped when the sift binary has not been built (test programs do not depend on it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

const fs::path kSift = fs::path(SIFT_BINARY_DIR) / "sift";

int run(const std::string& args) {
  std::string command = kSift.string() + " synth " + args + " >/dev/null 2>&1";
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

class SynthCli : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kSift)) GTEST_SKIP() << "sift binary not built: " << kSift;
    dir_ = fs::temp_directory_path() / ("sift_synth_cli_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

}  // namespace

TEST_F(SynthCli, WritesTheFiveFilesDeterministically) {
  ASSERT_EQ(run("--out " + (dir_ / "a").string() + " --members 120 --seed 3"), 0);
  ASSERT_EQ(run("--out " + (dir_ / "b").string() + " --members 120 --seed 3"), 0);
  for (const char* file : {"train.jsonl", "validation.jsonl", "test.jsonl", "catalog.jsonl", "summary.json"}) {
    ASSERT_TRUE(fs::exists(dir_ / "a" / file)) << file;
    EXPECT_EQ(read_file(dir_ / "a" / file), read_file(dir_ / "b" / file)) << file;
  }
  nlohmann::json summary = nlohmann::json::parse(read_file(dir_ / "a" / "summary.json"));
  EXPECT_EQ(summary["members"], 120);
  EXPECT_EQ(summary["pairs"], 120 * 20);
  EXPECT_EQ(summary["noise"], 0.05);
}

TEST_F(SynthCli, OptionsChangeTheOutput) {
  ASSERT_EQ(run("--out " + dir_.string() + " --members 40 --candidates 7 --noise 0 --split 0.5,0.25,0.25"), 0);
  std::ifstream in(dir_ / "train.jsonl");
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  nlohmann::json row = nlohmann::json::parse(line);
  EXPECT_EQ(row["items"].size(), 7u);
  EXPECT_EQ(row["labels"], row["truth"]);  // no noise
}

TEST_F(SynthCli, BadArgumentsFail) {
  std::string out = " --out " + dir_.string();
  EXPECT_NE(run(out + " --noise 0.6"), 0);
  EXPECT_NE(run(out + " --noise -0.1"), 0);
  EXPECT_NE(run(out + " --split 0.8,0.1"), 0);
  EXPECT_NE(run(out + " --split 0.8,0.1,0.2"), 0);
  EXPECT_NE(run(out + " --candidates 0"), 0);
  EXPECT_NE(run(out + " --members 0"), 0);
  EXPECT_NE(run(out + " --members many"), 0);
  EXPECT_NE(run("--members 10"), 0);  // --out is required
}

// A skills section: a header line of its own, then a list ("- X", "* X", "1. X", ...).
int64_t skills_sections_in(const std::filesystem::path& corpus) {
  static const std::regex section("\n(Skills|Top skills|Key skills|What I bring|Skills I list):\n(- |\\* |\u2022 |1[.):] )");
  std::ifstream in(corpus);
  int64_t n = 0;
  for (std::string line; std::getline(in, line);)
    n += std::regex_search(nlohmann::json::parse(line).at("text").get<std::string>(), section) ? 1 : 0;
  return n;
}

TEST_F(SynthCli, NoSkillsSectionsLeavesThemOutOfTheCorpus) {
  const std::filesystem::path with = dir_ / "with.jsonl", without = dir_ / "without.jsonl";
  ASSERT_EQ(run("--out " + (dir_ / "a").string() + " --members 30 --pretraining-corpus " + with.string() +
                " --tokens 20000"),
            0);
  ASSERT_EQ(run("--out " + (dir_ / "b").string() + " --members 30 --pretraining-corpus " + without.string() +
                " --tokens 20000 --no-skills-sections"),
            0);
  EXPECT_GT(skills_sections_in(with), 50);
  EXPECT_EQ(skills_sections_in(without), 0);
  EXPECT_EQ(read_file(dir_ / "a" / "train.jsonl"), read_file(dir_ / "b" / "train.jsonl")) << "the world is the same";
}

TEST_F(SynthCli, WritesThePretrainingCorpusBesideTheWorld) {
  const std::string corpus = (dir_ / "corpus.jsonl").string();
  ASSERT_EQ(run("--out " + (dir_ / "w").string() + " --members 30 --pretraining-corpus " + corpus + " --tokens 5000"),
            0);
  std::ifstream in(corpus);
  int64_t lines = 0, bytes = 0;
  for (std::string line; std::getline(in, line); ++lines)
    bytes += int64_t(nlohmann::json::parse(line).at("text").get<std::string>().size());
  EXPECT_GE(bytes, 5000 * 4);
  nlohmann::json summary = nlohmann::json::parse(read_file(dir_ / "w" / "summary.json"));
  EXPECT_EQ(summary["pretraining_corpus"]["documents"], lines);

  std::string out = " --out " + (dir_ / "w").string();
  EXPECT_EQ(run(out + " --tokens 100"), 2) << "--tokens needs --pretraining-corpus";
  EXPECT_EQ(run(out + " --no-skills-sections"), 2) << "--no-skills-sections needs --pretraining-corpus";
  EXPECT_EQ(run(out + " --pretraining-corpus " + corpus + " --tokens 0"), 2);
  EXPECT_EQ(run(out + " --pretraining-corpus " + (dir_ / "w" / "train.jsonl").string()), 2)
      << "the corpus must not replace one of the world's files";
}
