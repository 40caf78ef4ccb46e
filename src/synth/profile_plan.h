#pragma once
// What a member has and which distractors their profile will mention, decided before any
// text is written. Sizes are tuned so that a profile is 60-200 words and roughly a third of
// its top-20 retrieved candidates are true.
#include <vector>

#include "synth/catalog.h"
#include "synth/rng.h"

namespace sift::synth {

struct NearMissPair {
  int absent;  // not held: retrieval brings it in through the look-alike's words
  int held;    // held and written
};

struct ProfilePlan {
  std::vector<int> roles;           // qualifications written as job titles; [0] is the current role
  std::vector<int> skills;          // other held skills, written by name or alias
  std::vector<int> domains;         // held industry domains
  std::vector<int> certifications;  // held certifications
  std::vector<int> languages;       // spoken languages
  std::vector<NearMissPair> near_misses;  // the held side is also in skills/certifications/languages
  std::vector<int> negated;         // written as "no experience with X"
  std::vector<int> other_person;    // written as "my manager led the X migration"
  std::vector<int> truth;           // closure of all held qualifications
};

// Precomputed pools, built once per catalog.
class ProfilePlanner {
 public:
  explicit ProfilePlanner(const Catalog& catalog);
  ProfilePlan plan(Rng& rng) const;

 private:
  struct RolePools {
    std::vector<int> related_roles;  // other roles in the same neighbourhood
    std::vector<int> own_skills;     // the role's own category
    std::vector<int> skills;         // all skill categories of the neighbourhood
    std::vector<int> certifications;
    std::vector<NearMissPair> near_misses;  // pairs whose held side fits the role
  };
  const Catalog& catalog_;
  std::vector<int> roles_;             // every qualification with job titles
  std::vector<RolePools> role_pools_;  // parallel to roles_
  std::vector<int> languages_, domains_, soft_skills_, all_skills_;
};

}  // namespace sift::synth
