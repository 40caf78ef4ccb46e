// The dataset writer: format, determinism, member-disjoint splits, label noise, options.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "core/error.h"
#include "core/parallel.h"
#include "synth/dataset.h"

using namespace sift::synth;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kFiles = {"train.jsonl", "validation.jsonl", "test.jsonl", "catalog.jsonl",
                                         "summary.json"};

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("sift_synth_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  return dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<nlohmann::json> read_jsonl(const fs::path& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

SynthSummary write(const fs::path& dir, int64_t members, uint64_t seed, double noise = 0.05) {
  SynthOptions options;
  options.out_dir = dir;
  options.n_members = members;
  options.seed = seed;
  options.noise = noise;
  options.chunk_members = 97;  // several chunks, one of them partial
  return write_synth_dataset(options);
}

}  // namespace

TEST(Dataset, LinesHaveTheScoreInputFormatPlusLabels) {
  fs::path dir = fresh_dir("format");
  write(dir, 200, 3);
  const Catalog& catalog = Catalog::builtin();
  std::map<std::string, int> index_of_id;
  for (int q = 0; q < catalog.size(); ++q) index_of_id[catalog[q].id] = q;
  std::vector<nlohmann::json> rows = read_jsonl(dir / "train.jsonl");
  ASSERT_FALSE(rows.empty());
  for (const nlohmann::json& row : rows) {
    std::vector<std::string> keys;
    for (auto it = row.begin(); it != row.end(); ++it) keys.push_back(it.key());
    ASSERT_EQ(keys.size(), 5u);
    ASSERT_TRUE(row["id"].is_string());
    EXPECT_EQ(row["id"].get<std::string>().substr(0, 1), "m");
    ASSERT_TRUE(row["query"].is_string());
    ASSERT_EQ(row["items"].size(), 20u);
    ASSERT_EQ(row["labels"].size(), 20u);
    ASSERT_EQ(row["truth"].size(), 20u);
    std::set<std::string> item_ids;
    for (size_t i = 0; i < 20; ++i) {
      const nlohmann::json& item = row["items"][i];
      const auto q = index_of_id.find(item["id"].get<std::string>());
      ASSERT_NE(q, index_of_id.end()) << item;
      EXPECT_EQ(item["text"], catalog[q->second].name);
      EXPECT_TRUE(item_ids.insert(item["id"]).second) << "candidate retrieved twice";
      int label = row["labels"][i], truth = row["truth"][i];
      EXPECT_TRUE(label == 0 || label == 1);
      EXPECT_TRUE(truth == 0 || truth == 1);
    }
  }
  // The ordered JSON keeps the documented key order.
  std::string first_line = read_file(dir / "train.jsonl").substr(0, 8);
  EXPECT_EQ(first_line, "{\"id\":\"m");
  std::vector<nlohmann::json> catalog_rows = read_jsonl(dir / "catalog.jsonl");
  ASSERT_EQ(int(catalog_rows.size()), catalog.size());
  for (const char* key : {"id", "name", "category", "aliases", "implies"}) EXPECT_TRUE(catalog_rows[0].contains(key));
  fs::remove_all(dir);
}

TEST(Dataset, SameSeedSameBytesDifferentSeedDifferentBytes) {
  fs::path a = fresh_dir("seed_a"), b = fresh_dir("seed_b"), c = fresh_dir("seed_c"), d = fresh_dir("seed_d");
  write(a, 300, 11);
  write(b, 300, 11);
  write(c, 300, 12);
  int threads = sift::n_threads();
  sift::set_n_threads(1);  // the bytes do not depend on the number of threads either
  write(d, 300, 11);
  sift::set_n_threads(threads);
  for (const std::string& file : kFiles) {
    EXPECT_EQ(read_file(a / file), read_file(b / file)) << file;
    EXPECT_EQ(read_file(a / file), read_file(d / file)) << file << " (1 thread)";
  }
  EXPECT_NE(read_file(a / "train.jsonl"), read_file(c / "train.jsonl"));
  EXPECT_NE(read_file(a / "test.jsonl"), read_file(c / "test.jsonl"));
  for (const fs::path& dir : {a, b, c, d}) fs::remove_all(dir);
}

TEST(Dataset, SplitsAreMemberDisjointAndCoverEveryMember) {
  fs::path dir = fresh_dir("splits");
  const int64_t n = 3000;
  SynthSummary summary = write(dir, n, 5);
  std::map<std::string, std::string> split_of;
  for (Split s : kAllSplits) {
    std::string name(split_name(s));
    std::vector<nlohmann::json> rows = read_jsonl(dir / (name + ".jsonl"));
    EXPECT_EQ(int64_t(rows.size()), summary.splits[size_t(s)].members);
    for (const nlohmann::json& row : rows) {
      std::string id = row["id"];
      ASSERT_TRUE(split_of.emplace(id, name).second) << id << " appears twice";
      int64_t index = std::stoll(id.substr(1));
      EXPECT_EQ(assign_split(5, index, SplitFractions{}), s);
    }
  }
  ASSERT_EQ(int64_t(split_of.size()), n);
  // 0.8/0.1/0.1 within ~4.5 standard deviations.
  EXPECT_NEAR(double(summary.splits[0].members) / n, 0.8, 0.033);
  EXPECT_NEAR(double(summary.splits[1].members) / n, 0.1, 0.025);
  EXPECT_NEAR(double(summary.splits[2].members) / n, 0.1, 0.025);
  fs::remove_all(dir);
}

TEST(Dataset, RealisedNoiseMatchesTheRequestedRate) {
  const Catalog& catalog = Catalog::builtin();
  for (double noise : {0.0, 0.05, 0.2}) {
    MemberFactory factory(catalog, 9, 20, noise, SplitFractions{});
    int64_t flips = 0, labels = 0;
    for (int64_t i = 0; i < 5000; ++i) {
      LabeledMember m = factory.make(i);
      for (size_t j = 0; j < m.labels.size(); ++j) {
        flips += m.labels[j] != m.truth[j];
        ++labels;
      }
    }
    double rate = double(flips) / double(labels);
    // Binomial: 5 standard deviations of the flip rate over 100k labels.
    double bound = 5.0 * std::sqrt(noise * (1 - noise) / double(labels));
    EXPECT_NEAR(rate, noise, bound) << "noise " << noise;
    if (noise == 0.0) {
      EXPECT_EQ(flips, 0);
    }
  }
}

TEST(Dataset, TruthFlagsAreTheProfileTruth) {
  MemberFactory factory(Catalog::builtin(), 4, 20, 0.05, SplitFractions{});
  for (int64_t i = 0; i < 200; ++i) {
    LabeledMember m = factory.make(i);
    ASSERT_EQ(m.candidates.size(), 20u);
    for (size_t j = 0; j < m.candidates.size(); ++j) {
      EXPECT_EQ(m.truth[j], m.profile.is_true(m.candidates[j].document) ? 1 : 0);
      if (j > 0) {
        EXPECT_GE(m.candidates[j - 1].score, m.candidates[j].score);  // ranking order
      }
    }
    LabeledMember again = factory.make(i);
    EXPECT_EQ(factory.to_jsonl(m), factory.to_jsonl(again));
  }
}

TEST(Dataset, SummaryIsConsistentAndInTheTargetRanges) {
  fs::path dir = fresh_dir("summary");
  SynthSummary summary = write(dir, 2000, 1);
  nlohmann::json j = nlohmann::json::parse(read_file(dir / "summary.json"));
  EXPECT_EQ(j["members"], 2000);
  EXPECT_EQ(j["pairs"], 2000 * 20);
  EXPECT_EQ(j["catalog_size"], Catalog::builtin().size());
  int64_t train_lines = int64_t(read_jsonl(dir / "train.jsonl").size());
  EXPECT_EQ(j["splits"]["train"]["members"], train_lines);
  double positive_rate = j["truth_positive_rate"];
  EXPECT_GE(positive_rate, 0.25);
  EXPECT_LE(positive_rate, 0.45);
  double recall = j["truth_recall_at_k"];
  EXPECT_GT(recall, 0.5);
  EXPECT_LE(recall, 1.0);
  EXPECT_GT(j["written_truth_recall_at_k"].get<double>(), 0.85);
  EXPECT_NEAR(j["flip_rate"].get<double>(), 0.05, 0.01);
  // Distractors are plausible negatives: most are retrieved.
  EXPECT_GT(j["distractors"]["negated"]["retrieved_rate"].get<double>(), 0.5);
  EXPECT_GT(j["distractors"]["near_miss"]["retrieved_rate"].get<double>(), 0.5);
  fs::remove_all(dir);
}

TEST(DatasetOptions, BadArgumentsAreRejectedWithClearErrors) {
  auto error_of = [](const std::function<void(SynthOptions&)>& change) -> std::string {
    SynthOptions options;
    options.out_dir = "unused";
    change(options);
    try {
      options.validate(Catalog::builtin().size());
    } catch (const sift::OptionError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of([](SynthOptions&) {}), "");
  EXPECT_NE(error_of([](SynthOptions& o) { o.noise = -0.01; }).find("--noise"), std::string::npos);
  EXPECT_NE(error_of([](SynthOptions& o) { o.noise = 0.51; }).find("--noise"), std::string::npos);
  EXPECT_NE(error_of([](SynthOptions& o) { o.noise = std::nan(""); }).find("--noise"), std::string::npos);
  EXPECT_EQ(error_of([](SynthOptions& o) { o.noise = 0.5; }), "");
  EXPECT_NE(error_of([](SynthOptions& o) { o.n_candidates = 0; }).find("--candidates"), std::string::npos);
  EXPECT_NE(error_of([](SynthOptions& o) { o.n_candidates = 100000; }).find("catalog"), std::string::npos);
  EXPECT_NE(error_of([](SynthOptions& o) { o.n_members = 0; }).find("--members"), std::string::npos);
  EXPECT_NE(error_of([](SynthOptions& o) { o.out_dir.clear(); }).find("--out"), std::string::npos);

  // write_synth_dataset checks first: a bad option leaves no --out behind.
  SynthOptions bad;
  bad.out_dir = fs::temp_directory_path() / "sift_synth_never_created";
  bad.noise = 2;
  EXPECT_THROW(write_synth_dataset(bad), sift::OptionError);
  EXPECT_FALSE(fs::exists(bad.out_dir));

  EXPECT_NO_THROW(SplitFractions::parse("0.8,0.1,0.1"));
  EXPECT_NO_THROW(SplitFractions::parse("1,0,0"));
  EXPECT_THROW(SplitFractions::parse("0.8,0.1"), sift::OptionError);
  EXPECT_THROW(SplitFractions::parse("0.8,0.1,0.2"), sift::OptionError);
  EXPECT_THROW(SplitFractions::parse("a,b,c"), sift::OptionError);
  EXPECT_THROW(SplitFractions::parse("1.2,-0.1,-0.1"), sift::OptionError);
  EXPECT_THROW(SplitFractions::parse("0.8,0.1,0.1,0"), sift::OptionError);
}

TEST(Dataset, EmptySplitStillGetsItsFile) {
  fs::path dir = fresh_dir("empty_split");
  SynthOptions options;
  options.out_dir = dir;
  options.n_members = 50;
  options.split = SplitFractions::parse("0.7,0.3,0");
  SynthSummary summary = write_synth_dataset(options);
  EXPECT_EQ(summary.splits[2].members, 0);
  EXPECT_TRUE(fs::exists(dir / "test.jsonl"));
  EXPECT_EQ(fs::file_size(dir / "test.jsonl"), 0u);
  fs::remove_all(dir);
}
