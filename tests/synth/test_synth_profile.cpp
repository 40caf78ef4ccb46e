// Generated profiles: the text says exactly what the evidence records claim, the truth is
// the closure of what is written positively, and no distractor is ever true.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "mention_scanner.h"
#include "synth/profile.h"
#include "synth/rng.h"
#include "retrieval/text_tokens.h"

using namespace sift::synth;

namespace {

constexpr int kProfiles = 3000;

const std::vector<Profile>& profiles() {
  static const std::vector<Profile> sample = [] {
    ProfileGenerator generator(Catalog::builtin());
    std::vector<Profile> out;
    for (int i = 0; i < kProfiles; ++i) out.push_back(generator.generate(derive_seed(42, 1, uint64_t(i))));
    return out;
  }();
  return sample;
}

bool contains(const std::vector<int>& sorted, int q) { return std::binary_search(sorted.begin(), sorted.end(), q); }

std::string describe(const Profile& p) {
  std::string s = "profile:\n" + p.text + "\nevidence:";
  for (const Evidence& e : p.evidence)
    s += "\n  " + std::string(evidence_kind_name(e.kind)) + " " + Catalog::builtin()[e.qualification].name + " '" +
         e.surface + "'";
  return s;
}

}  // namespace

TEST(Profile, SameSeedSameProfile) {
  ProfileGenerator generator(Catalog::builtin());
  Profile a = generator.generate(123), b = generator.generate(123), c = generator.generate(124);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.truth, b.truth);
  EXPECT_NE(a.text, c.text);
}

TEST(Profile, TruthIsTheClosureOfWhatIsWrittenPositively) {
  const Catalog& catalog = Catalog::builtin();
  for (const Profile& p : profiles()) {
    std::set<int> written;
    for (const Evidence& e : p.evidence)
      if (e.kind == EvidenceKind::direct || e.kind == EvidenceKind::alias || e.kind == EvidenceKind::title)
        written.insert(e.qualification);
    ASSERT_EQ(p.held, std::vector<int>(written.begin(), written.end())) << describe(p);
    ASSERT_EQ(p.truth, catalog.closure(p.held)) << describe(p);
    ASSERT_FALSE(p.truth.empty());
  }
}

TEST(Profile, EvidenceKindsDecideTruth) {
  const Catalog& catalog = Catalog::builtin();
  std::map<EvidenceKind, int> seen;
  for (const Profile& p : profiles())
    for (const Evidence& e : p.evidence) {
      ++seen[e.kind];
      const Qualification& q = catalog[e.qualification];
      if (supports_truth(e.kind))
        ASSERT_TRUE(p.is_true(e.qualification)) << evidence_kind_name(e.kind) << " " << q.name << "\n" << describe(p);
      else
        ASSERT_FALSE(p.is_true(e.qualification)) << evidence_kind_name(e.kind) << " " << q.name << "\n"
                                                 << describe(p);
      switch (e.kind) {
        case EvidenceKind::direct: EXPECT_EQ(e.surface, q.name); break;
        case EvidenceKind::alias:
          EXPECT_NE(std::find(q.aliases.begin(), q.aliases.end(), e.surface), q.aliases.end()) << e.surface;
          break;
        case EvidenceKind::title:
          EXPECT_NE(std::find(q.titles.begin(), q.titles.end(), e.surface), q.titles.end()) << e.surface;
          break;
        case EvidenceKind::implied:
          ASSERT_GE(e.source, 0);
          EXPECT_TRUE(contains(p.held, e.source));
          EXPECT_TRUE(catalog.implies(e.source, e.qualification));
          EXPECT_FALSE(contains(p.held, e.qualification));
          break;
        case EvidenceKind::near_miss: {
          ASSERT_GE(e.source, 0);
          EXPECT_TRUE(contains(p.held, e.source));
          const std::vector<int>& near = catalog[e.source].near_misses;
          EXPECT_NE(std::find(near.begin(), near.end(), e.qualification), near.end());
          break;
        }
        case EvidenceKind::negated:
        case EvidenceKind::other_person: break;
      }
    }
  // Every kind of evidence occurs in a sample this size.
  for (EvidenceKind kind : {EvidenceKind::direct, EvidenceKind::alias, EvidenceKind::title, EvidenceKind::implied,
                            EvidenceKind::negated, EvidenceKind::other_person, EvidenceKind::near_miss})
    EXPECT_GT(seen[kind], kProfiles / 20) << evidence_kind_name(kind);
}

// Scans each text for every catalog surface form: each mention found must be one the
// generator recorded (written positively, or as a negated / other-person distractor), and
// each recorded mention must be found. Templates, company names and fillers therefore never
// state a qualification by accident, and near misses are never mentions of what they resemble.
TEST(Profile, TextMentionsExactlyTheRecordedEvidence) {
  const Catalog& catalog = Catalog::builtin();
  MentionScanner scanner(catalog);
  for (const Profile& p : profiles()) {
    std::set<int> found;
    for (const Mention& m : scanner.scan(p.text)) found.insert(m.qualification);
    std::set<int> recorded;
    for (const Evidence& e : p.evidence)
      if (e.kind != EvidenceKind::implied && e.kind != EvidenceKind::near_miss) recorded.insert(e.qualification);
    for (int q : found)
      ASSERT_TRUE(recorded.count(q)) << "unrecorded mention of " << catalog[q].name << "\n" << describe(p);
    for (int q : recorded) ASSERT_TRUE(found.count(q)) << "recorded but not found: " << catalog[q].name << "\n" << describe(p);
    for (const Evidence& e : p.evidence)
      if (e.kind == EvidenceKind::near_miss || e.kind == EvidenceKind::implied) {
        ASSERT_FALSE(found.count(e.qualification)) << catalog[e.qualification].name << "\n" << describe(p);
      }
  }
}

TEST(Profile, LengthsAndStylesVary) {
  std::map<ProfileStyle, int> styles;
  double total_words = 0;
  for (const Profile& p : profiles()) {
    size_t words = sift::retrieval::count_words(p.text);
    EXPECT_GE(words, 20u) << p.text;
    EXPECT_LE(words, 220u) << p.text;
    total_words += double(words);
    ++styles[p.style];
  }
  double mean = total_words / kProfiles;
  EXPECT_GE(mean, 60.0);
  EXPECT_LE(mean, 200.0);
  EXPECT_EQ(styles.size(), 3u);
  for (auto [style, n] : styles) EXPECT_GT(n, kProfiles / 10) << style_name(style);
}

TEST(MentionScanner, LongestMatchWins) {
  const Catalog& catalog = Catalog::builtin();
  MentionScanner scanner(catalog);
  std::vector<Mention> m = scanner.scan("Spark AR filters, JavaScript, Java and Apache Spark; React Native.");
  ASSERT_EQ(m.size(), 5u);
  EXPECT_EQ(m[0].qualification, *catalog.find("Spark AR"));
  EXPECT_EQ(m[1].qualification, *catalog.find("JavaScript"));
  EXPECT_EQ(m[2].qualification, *catalog.find("Java"));
  EXPECT_EQ(m[3].qualification, *catalog.find("Apache Spark"));
  EXPECT_EQ(m[4].qualification, *catalog.find("React Native"));
}

TEST(MentionScanner, DoesNotMatchAcrossSeparators) {
  const Catalog& catalog = Catalog::builtin();
  MentionScanner scanner(catalog);
  std::vector<Mention> split = scanner.scan("Visual Studio · Code Review");
  ASSERT_EQ(split.size(), 2u);
  EXPECT_EQ(split[0].qualification, *catalog.find("Visual Studio"));
  EXPECT_EQ(split[1].qualification, *catalog.find("Code Review"));
  std::vector<Mention> joined = scanner.scan("visual studio code and Microsoft Certified: Azure Fundamentals");
  ASSERT_EQ(joined.size(), 2u);
  EXPECT_EQ(joined[0].qualification, *catalog.find("Visual Studio Code"));
  EXPECT_EQ(joined[1].qualification, *catalog.find("AZ-900"));
}
