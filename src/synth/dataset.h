#pragma once
// The synthetic labeling dataset: for each member, a profile (the query), its top-K
// candidates retrieved by BM25 from the catalog (the items), the clean truth of each
// candidate and the reference label (truth with each label flipped with probability `noise`).
//
// Output (one JSON object per line, the `sift score` input format plus labels):
//   {"id":"m000123","query":"<profile>","items":[{"id":"q0042","text":"Apache Spark"},...],
//    "labels":[1,0,...],"truth":[1,0,...]}
// in OUT/train.jsonl, OUT/validation.jsonl, OUT/test.jsonl; plus OUT/catalog.jsonl and
// OUT/summary.json; with pretraining_corpus also that file (pretraining_corpus.h: text of a
// population disjoint from every split). Every byte is a pure function of the options (no
// timings, no thread counts), so the same seed gives identical files.
#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "retrieval/bm25.h"
#include "synth/catalog.h"
#include "synth/pretraining_corpus.h"
#include "synth/profile.h"
#include "synth/splits.h"

namespace sift::synth {

struct SynthOptions {
  std::filesystem::path out_dir;
  int64_t n_members = 1000;
  int n_candidates = 20;  // K
  double noise = 0.05;    // probability of flipping each reference label
  uint64_t seed = 1;
  SplitFractions split;
  std::filesystem::path pretraining_corpus;  // empty: none written
  int64_t corpus_tokens = CorpusOptions{}.tokens;
  bool corpus_skills_sections = true;  // false: the corpus's profiles without their skills sections
  int64_t chunk_members = 2048;  // members generated in parallel, then written in order
  // Called after each chunk with (members done, members total).
  std::function<void(int64_t, int64_t)> on_progress;

  // Throws sift::OptionError with a message naming the bad option.
  void validate(int catalog_size) const;
};

// One member with everything that goes into its JSONL line.
struct LabeledMember {
  int64_t index = 0;
  std::string id;  // "m000123"
  Split split = Split::train;
  Profile profile;
  std::vector<retrieval::ScoredDocument> candidates;  // BM25 ranking order
  std::vector<uint8_t> truth;              // clean, per candidate
  std::vector<uint8_t> labels;             // reference = truth with noise
};

std::string member_id(int64_t index);

// Makes members; read-only after construction, so threads may share one.
class MemberFactory {
 public:
  MemberFactory(const Catalog& catalog, uint64_t seed, int n_candidates, double noise, SplitFractions split);
  LabeledMember make(int64_t index) const;
  // The member's JSONL line, without the trailing newline.
  std::string to_jsonl(const LabeledMember& member) const;

 private:
  const Catalog& catalog_;
  ProfileGenerator generator_;
  retrieval::Bm25Index index_;
  uint64_t seed_;
  int n_candidates_;
  double noise_;
  SplitFractions split_;
};

// Counts behind summary.json.
struct SplitCounts {
  int64_t members = 0;
  int64_t pairs = 0;
  int64_t reference_positives = 0;
  int64_t truth_positives = 0;
  int64_t flips = 0;
};
struct SynthSummary {
  SynthOptions options;
  int catalog_size = 0;
  std::array<SplitCounts, 3> splits{};  // by Split
  int64_t truth_total = 0;        // true qualifications over all members
  int64_t truth_retrieved = 0;    // ... of which in the member's top-K
  int64_t written_total = 0;      // written positively (direct, alias, title)
  int64_t written_retrieved = 0;
  std::array<int64_t, 3> distractor_total{};      // negated, other_person, near_miss
  std::array<int64_t, 3> distractor_retrieved{};
  // Retrieved true candidates by their most direct evidence: direct, title, alias, implied.
  std::array<int64_t, 4> retrieved_true_by_evidence{};
  int64_t profile_words = 0;
  std::optional<CorpusSummary> corpus;  // when a pretraining corpus was written

  void add(const LabeledMember& member);
  SplitCounts all() const;
  nlohmann::ordered_json to_json() const;
};

// Checks the options (an OptionError, before anything is created), then writes the dataset
// into options.out_dir (created if needed, locked while written: io/path_lock.h) and returns
// its summary.
SynthSummary write_synth_dataset(const SynthOptions& options, const Catalog& catalog = Catalog::builtin());

}  // namespace sift::synth
