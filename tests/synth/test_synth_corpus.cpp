// The pretraining corpus (synth/pretraining_corpus.h): no member of any split in it, the same
// bytes for a seed (whatever the threads), its size and its kinds of documents, no labels.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "core/error.h"
#include "core/parallel.h"
#include "synth/dataset.h"
#include "synth/pretraining_corpus.h"

using namespace sift::synth;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("sift_corpus_test_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<std::string> texts_of(const fs::path& corpus) {
  std::vector<std::string> texts;
  std::ifstream in(corpus);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    EXPECT_EQ(row.size(), 1u) << "a corpus line holds its text and nothing else: " << line;
    texts.push_back(row.at("text").get<std::string>());
  }
  return texts;
}

CorpusSummary write_corpus(const fs::path& path, int64_t tokens, uint64_t seed) {
  return write_pretraining_corpus({path, tokens, seed}, Catalog::builtin(), {});
}

}  // namespace

// The world and its corpus from one `sift synth`: no corpus document holds the profile of a
// member of any split (a corpus drawn from the members' own seed stream would hold them all).
TEST(PretrainingCorpus, HoldsNoMemberOfAnySplit) {
  const fs::path dir = fresh_dir("disjoint");
  SynthOptions options;
  options.out_dir = dir / "world";
  options.n_members = 400;
  options.seed = 11;
  options.pretraining_corpus = dir / "corpus.jsonl";
  options.corpus_tokens = 60'000;
  const SynthSummary summary = write_synth_dataset(options);
  ASSERT_TRUE(summary.corpus.has_value());
  EXPECT_EQ(summary.corpus->profiles_redrawn, 0);

  std::vector<std::string> members;
  for (const char* split : {"train.jsonl", "validation.jsonl", "test.jsonl"}) {
    std::ifstream in(dir / "world" / split);
    for (std::string line; std::getline(in, line);) members.push_back(nlohmann::json::parse(line).at("query"));
  }
  ASSERT_EQ(members.size(), 400u);
  const std::vector<std::string> corpus = texts_of(dir / "corpus.jsonl");
  EXPECT_EQ(int64_t(corpus.size()), summary.corpus->documents);
  for (const std::string& document : corpus)
    for (const std::string& member : members) ASSERT_EQ(document.find(member), std::string::npos) << document;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir / "world" / "summary.json"))["pretraining_corpus"]["documents"],
            summary.corpus->documents);
  fs::remove_all(dir);
}

// A corpus profile equal to a world member's is replaced by another draw.
TEST(PretrainingCorpus, RedrawsAProfileEqualToAWorldMembers) {
  const std::unordered_set<std::string> none;
  const CorpusDocuments plain(Catalog::builtin(), 3, none);
  int64_t found = 0;
  for (int64_t i = 0; i < 100 && found < 3; ++i) {
    const CorpusDocument d = plain.make(i);
    if (d.kind != CorpusDocumentKind::profile) continue;
    const std::unordered_set<std::string> world = {d.text};
    const CorpusDocument again = CorpusDocuments(Catalog::builtin(), 3, world).make(i);
    if (again.text == d.text) {  // a profile with its skills section: the profile alone is not in `world`
      EXPECT_EQ(again.redraws, 0);
      continue;
    }
    EXPECT_EQ(again.redraws, 1);
    EXPECT_EQ(again.kind, CorpusDocumentKind::profile);
    EXPECT_FALSE(world.contains(again.text));
    ++found;
  }
  EXPECT_EQ(found, 3) << "profiles without a skills section are common enough to find three";
}

// Without skills sections a profile document is the same profile, cut where its skills section
// (a header line, then a list of the member's qualifications) would begin; other documents are
// unchanged.
TEST(PretrainingCorpus, LeavesOutTheSkillsSectionsWhenAsked) {
  const std::unordered_set<std::string> none;
  const CorpusDocuments with(Catalog::builtin(), 9, none);
  const CorpusDocuments without(Catalog::builtin(), 9, none, /*skills_sections=*/false);
  const std::vector<std::string> headers = {"Skills:", "Top skills:", "Key skills:", "What I bring:", "Skills I list:"};
  int64_t profiles = 0, cut = 0;
  for (int64_t i = 0; i < 300; ++i) {
    const CorpusDocument a = with.make(i), b = without.make(i);
    ASSERT_EQ(a.kind, b.kind);
    if (a.kind != CorpusDocumentKind::profile) {
      EXPECT_EQ(a.text, b.text);
      continue;
    }
    ++profiles;
    ASSERT_EQ(a.text.compare(0, b.text.size(), b.text), 0) << "the profile itself is the same";
    if (a.text.size() == b.text.size()) continue;
    ++cut;
    const std::string section = a.text.substr(b.text.size());
    const size_t line_end = section.find('\n', 1);
    ASSERT_NE(line_end, std::string::npos) << section;
    EXPECT_NE(std::find(headers.begin(), headers.end(), section.substr(1, line_end - 1)), headers.end()) << section;
  }
  EXPECT_GT(profiles, 150);
  EXPECT_GT(cut, profiles / 2) << "most profiles have a skills section to leave out";
}

TEST(PretrainingCorpus, SameSeedSameBytesWhateverTheThreads) {
  const fs::path dir = fresh_dir("seed");
  write_corpus(dir / "a.jsonl", 30'000, 5);
  write_corpus(dir / "b.jsonl", 30'000, 5);
  write_corpus(dir / "c.jsonl", 30'000, 6);
  const int threads = sift::n_threads();
  sift::set_n_threads(1);
  write_corpus(dir / "d.jsonl", 30'000, 5);
  sift::set_n_threads(threads);
  EXPECT_EQ(read_file(dir / "a.jsonl"), read_file(dir / "b.jsonl"));
  EXPECT_EQ(read_file(dir / "a.jsonl"), read_file(dir / "d.jsonl"));
  EXPECT_NE(read_file(dir / "a.jsonl"), read_file(dir / "c.jsonl"));
  fs::remove_all(dir);
}

TEST(PretrainingCorpus, SizeAndKindsOfDocuments) {
  const fs::path dir = fresh_dir("size");
  const int64_t tokens = 200'000;
  const CorpusSummary summary = write_corpus(dir / "corpus.jsonl", tokens, 7);
  const std::vector<std::string> texts = texts_of(dir / "corpus.jsonl");
  int64_t bytes = 0;
  for (const std::string& t : texts) bytes += int64_t(t.size());
  EXPECT_EQ(bytes, summary.bytes);
  // Documents are added until the estimate reaches the target, and not one more.
  EXPECT_GE(bytes, tokens * kCorpusBytesPerToken);
  EXPECT_LT(bytes - int64_t(texts.back().size()), tokens * kCorpusBytesPerToken);
  EXPECT_EQ(summary.profiles + summary.catalog_descriptions + summary.lists, summary.documents);
  // About 3/4 profiles, 1/8 descriptions, 1/8 lists.
  EXPECT_NEAR(double(summary.profiles) / double(summary.documents), 0.75, 0.05);
  EXPECT_NEAR(double(summary.catalog_descriptions) / double(summary.documents), 0.125, 0.04);
  int numbered = 0, bulleted = 0, described = 0;
  for (const std::string& t : texts) {
    numbered += t.find("\n1. ") != std::string::npos || t.find("\n1) ") != std::string::npos;
    bulleted += t.find("\n- ") != std::string::npos;
    const size_t newline = t.find('\n');  // "<name>\n<name> is a skill in <category>. ..."
    described += newline != std::string::npos && t.compare(newline + 1, newline + 4, t.substr(0, newline) + " is ") == 0;
  }
  EXPECT_GT(numbered, 20);
  EXPECT_GT(bulleted, 20);
  EXPECT_NEAR(double(described) / double(summary.documents), 0.125, 0.04) << "the catalog's qualifications described";
  EXPECT_THROW(write_corpus(dir / "none.jsonl", 0, 7), sift::OptionError);
  fs::remove_all(dir);
}
