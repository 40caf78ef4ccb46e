#pragma once
// The pretraining corpus (`sift synth --pretraining-corpus FILE [--tokens N]`): the text a base
// model reads before it is fine-tuned to label, as {"text": ...} JSON lines. It holds no pair
// of any split and no member of the world's splits; what it teaches is the world's language:
//
//   profile    a profile of the corpus's own population (ProfileGenerator, seeds from a stream
//              of their own: corpus document i is seeded derive_seed(seed, kCorpusStream, i),
//              the world's member m derive_seed(seed, 1, m)), followed most of the time by the
//              skills section such a member writes: some of what they hold by the generator's
//              clean truth, by catalog name, as a bullet ("- X") or numbered ("1. X") list.
//              That section pairs a profile with qualifications it supports, the positive half
//              of a label, for members outside every split; skills_sections = false leaves it
//              out (`--no-skills-sections`)
//   catalog    one qualification described: its category and kind, its other names, the job
//              titles that state it, what holding it implies, the look-alikes it is not
//   list       a category's qualifications, or what a job title's people list, as a bullet or
//              numbered list (the lists a real LLM has read, answer lists included)
//
// No member of any split is in it: the corpus's profiles come from another seed stream than
// every split's, and a profile whose text equals one of the world's (none in practice) is
// replaced by another draw and counted. The catalog is shared with
// the world, as a real LLM's knowledge of skills is shared with the profiles it later labels.
//
// Size: documents are added until the text holds `tokens` tokens, estimated as bytes / 4 (a
// byte-level BPE of 3,000 tokens averages about 4 bytes per token on this text). Every byte is
// a pure function of (seed, tokens): the same seed gives the same file.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "synth/catalog.h"
#include "synth/profile.h"
#include "synth/rng.h"

namespace sift::synth {

inline constexpr int64_t kCorpusBytesPerToken = 4;

struct CorpusOptions {
  std::filesystem::path path;  // the JSONL file written
  int64_t tokens = 2'000'000;
  uint64_t seed = 1;
  bool skills_sections = true;  // false: profiles end without their skills section
};

enum class CorpusDocumentKind { profile, catalog, list };

struct CorpusDocument {
  CorpusDocumentKind kind = CorpusDocumentKind::profile;
  std::string text;
  int64_t redraws = 0;  // profile: draws replaced for being equal to a world member's profile
};

// The corpus's documents by index: a pure function of (catalog, seed, index, world_profiles).
// Read-only after construction, so threads may share one.
class CorpusDocuments {
 public:
  // world_profiles (the text of every profile of every split) must outlive this.
  CorpusDocuments(const Catalog& catalog, uint64_t seed, const std::unordered_set<std::string>& world_profiles,
                  bool skills_sections = true);
  CorpusDocument make(int64_t index) const;

 private:
  CorpusDocument profile(uint64_t document_seed, Rng& rng) const;
  std::string description(int qualification, Rng& rng) const;
  std::string list(Rng& rng) const;

  const Catalog& catalog_;
  ProfileGenerator generator_;
  uint64_t seed_;
  bool skills_sections_;
  const std::unordered_set<std::string>& world_profiles_;
  std::vector<int> roles_;  // qualifications with job titles
};

struct CorpusSummary {
  int64_t documents = 0;
  int64_t profiles = 0;
  int64_t catalog_descriptions = 0;
  int64_t lists = 0;
  int64_t bytes = 0;             // of the documents' text
  int64_t profiles_redrawn = 0;  // drawn equal to a world member's profile, replaced

  nlohmann::ordered_json to_json() const;
};

// Writes the corpus (atomically: the file appears whole). world_profiles: the text of every
// profile of every split.
CorpusSummary write_pretraining_corpus(const CorpusOptions& options, const Catalog& catalog,
                                       const std::unordered_set<std::string>& world_profiles);

}  // namespace sift::synth
