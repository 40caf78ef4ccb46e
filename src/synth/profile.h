#pragma once
// Member profiles as free text, with the exact ground truth behind them.
//
// The generator first decides what the member has (profile_plan.h), then writes it
// (profile_writer.cpp) in one of several styles, and records every piece of evidence:
//   supports truth : direct (canonical name), alias ("PySpark"), title ("Data Engineer"),
//                    implied (not written, but implied by a held certification or skill)
//   does not       : negated ("no experience with X"), other_person ("my manager led the X
//                    migration"), near_miss (the member holds a look-alike: "JavaScript"
//                    is written, Java is not held)
// Truth = closure of what is written positively; distractors are drawn outside it, so a
// distractor's qualification is never true.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "synth/catalog.h"
#include "synth/profile_plan.h"

namespace sift::synth {

enum class EvidenceKind { direct, alias, title, implied, negated, other_person, near_miss };
std::string_view evidence_kind_name(EvidenceKind kind);
// Whether evidence of this kind makes the qualification true.
bool supports_truth(EvidenceKind kind);

struct Evidence {
  int qualification;
  EvidenceKind kind;
  // What the profile says: the surface written (direct/alias/title/negated/other_person),
  // the look-alike's surface (near_miss), empty (implied).
  std::string surface;
  // implied: a held qualification that implies this one; near_miss: the held look-alike.
  int source = -1;
};

enum class ProfileStyle { resume, narrative, compact };
std::string_view style_name(ProfileStyle style);

struct Profile {
  std::string text;
  ProfileStyle style = ProfileStyle::resume;
  std::vector<int> held;   // written positively (sorted, unique)
  std::vector<int> truth;  // closure(held): what the member really has (sorted, unique)
  std::vector<Evidence> evidence;

  bool is_true(int qualification) const;
};

class ProfileGenerator {
 public:
  // Throws sift::Error if the vocabulary names a category the catalog lacks.
  explicit ProfileGenerator(const Catalog& catalog);
  // A pure function of the seed.
  Profile generate(uint64_t seed) const;

  const Catalog& catalog() const { return catalog_; }

 private:
  const Catalog& catalog_;
  ProfilePlanner planner_;
};

}  // namespace sift::synth
