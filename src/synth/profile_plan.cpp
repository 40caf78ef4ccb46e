#include "synth/profile_plan.h"

#include <algorithm>

#include "core/error.h"
#include "synth/profile_vocab.h"

namespace sift::synth {

namespace {

bool contains(const std::vector<int>& items, int x) { return std::find(items.begin(), items.end(), x) != items.end(); }

std::vector<int> category_members(const Catalog& catalog, std::string_view category) {
  std::vector<int> members = catalog.in_category(category);
  if (members.empty()) fail("synth vocabulary names category '{}', which the catalog lacks", category);
  return members;
}

// Draws up to n distinct items from pool that `accept` allows (bounded retries: pools are
// large compared with n, and a short draw is harmless).
template <typename Accept>
std::vector<int> draw_distinct(Rng& rng, const std::vector<int>& pool, int n, Accept accept) {
  std::vector<int> drawn;
  if (pool.empty()) return drawn;
  for (int attempt = 0; attempt < 20 * n && int(drawn.size()) < n; ++attempt) {
    int q = rng.pick(pool);
    if (accept(q) && !contains(drawn, q)) drawn.push_back(q);
  }
  return drawn;
}

}  // namespace

ProfilePlanner::ProfilePlanner(const Catalog& catalog) : catalog_(catalog) {
  std::vector<NearMissPair> near_miss_pairs;  // both directions
  for (int q = 0; q < catalog.size(); ++q) {
    const Qualification& qual = catalog[q];
    if (!qual.titles.empty()) roles_.push_back(q);
    if (qual.kind == QualificationKind::skill) all_skills_.push_back(q);
    for (int other : qual.near_misses) near_miss_pairs.push_back({other, q});
  }
  languages_ = category_members(catalog, vocab::kLanguageCategory);
  domains_ = category_members(catalog, vocab::kDomainCategory);
  soft_skills_ = category_members(catalog, vocab::kSoftSkillCategory);

  for (int role : roles_) {
    const std::string& category = catalog[role].category;
    auto it = std::find_if(vocab::neighbourhoods().begin(), vocab::neighbourhoods().end(),
                           [&](const vocab::Neighbourhood& n) { return n.role_category == category; });
    if (it == vocab::neighbourhoods().end())
      fail("synth vocabulary has no neighbourhood for role category '{}' ({})", category, catalog[role].name);
    RolePools pools;
    pools.own_skills = category_members(catalog, category);
    for (std::string_view c : it->skill_categories) {
      std::vector<int> members = category_members(catalog, c);
      pools.skills.insert(pools.skills.end(), members.begin(), members.end());
    }
    for (std::string_view c : it->certification_categories) {
      std::vector<int> members = category_members(catalog, c);
      pools.certifications.insert(pools.certifications.end(), members.begin(), members.end());
    }
    for (int other : roles_)
      if (other != role && contains(pools.skills, other)) pools.related_roles.push_back(other);
    // Near misses whose held side fits the role (or is a spoken language).
    for (const NearMissPair& pair : near_miss_pairs)
      if (contains(pools.skills, pair.held) || contains(pools.certifications, pair.held) ||
          contains(languages_, pair.held))
        pools.near_misses.push_back(pair);
    role_pools_.push_back(std::move(pools));
  }
}

ProfilePlan ProfilePlanner::plan(Rng& rng) const {
  ProfilePlan plan;
  size_t role_index = rng.below(roles_.size());
  const RolePools& pools = role_pools_[role_index];
  plan.roles.push_back(roles_[role_index]);
  if (!pools.related_roles.empty() && rng.chance(0.5)) plan.roles.push_back(rng.pick(pools.related_roles));

  std::vector<int> held = plan.roles;
  auto not_held = [&](int q) { return !contains(held, q); };
  auto hold = [&](std::vector<int>& list, const std::vector<int>& drawn) {
    list.insert(list.end(), drawn.begin(), drawn.end());
    held.insert(held.end(), drawn.begin(), drawn.end());
  };

  // Skills: half from the role's own category, half from the rest of its neighbourhood.
  int n_skills = rng.between(2, 4);
  for (int i = 0; i < n_skills; ++i)
    hold(plan.skills, draw_distinct(rng, rng.chance(0.5) ? pools.own_skills : pools.skills, 1, not_held));
  if (rng.chance(0.3)) hold(plan.domains, draw_distinct(rng, domains_, 1, not_held));
  if (rng.chance(0.2)) hold(plan.skills, draw_distinct(rng, soft_skills_, 1, not_held));
  int n_certifications = rng.chance(0.45) ? (rng.chance(0.25) ? 2 : 1) : 0;
  hold(plan.certifications, draw_distinct(rng, pools.certifications, n_certifications, not_held));
  double u = rng.uniform();
  int n_languages = u < 0.55 ? 1 : (u < 0.9 ? 2 : 3);
  if (rng.chance(0.6)) {
    hold(plan.languages, {*catalog_.find("English")});
    --n_languages;
  }
  hold(plan.languages, draw_distinct(rng, languages_, n_languages, not_held));
  plan.truth = catalog_.closure(held);

  // A near miss: hold the look-alike, make sure the other one stays false.
  if (!pools.near_misses.empty() && rng.chance(0.4)) {
    for (int attempt = 0; attempt < 10; ++attempt) {
      NearMissPair pair = rng.pick(pools.near_misses);
      std::vector<int> with_pair = held;
      with_pair.push_back(pair.held);
      std::vector<int> truth = catalog_.closure(with_pair);
      if (std::binary_search(truth.begin(), truth.end(), pair.absent)) continue;
      if (not_held(pair.held)) {
        QualificationKind kind = catalog_[pair.held].kind;
        std::vector<int>& list = kind == QualificationKind::certification ? plan.certifications
                                 : kind == QualificationKind::language    ? plan.languages
                                 : kind == QualificationKind::domain      ? plan.domains
                                                                          : plan.skills;
        hold(list, {pair.held});
      }
      plan.near_misses.push_back(pair);
      plan.truth = std::move(truth);
      break;
    }
  }

  // Distractors: anything not true and not used yet, mostly from the role's own pools so
  // that they are plausible for this member.
  auto usable_distractor = [&](int q) {
    if (std::binary_search(plan.truth.begin(), plan.truth.end(), q)) return false;
    if (contains(plan.negated, q) || contains(plan.other_person, q)) return false;
    return std::none_of(plan.near_misses.begin(), plan.near_misses.end(),
                        [q](const NearMissPair& p) { return p.absent == q; });
  };
  auto draw_distractor = [&]() -> int {
    double r = rng.uniform();
    const std::vector<int>& pool = r < 0.6                                           ? pools.skills
                                   : (r < 0.75 && !pools.certifications.empty())    ? pools.certifications
                                   : r < 0.9                                         ? languages_
                                                                                     : all_skills_;
    std::vector<int> drawn = draw_distinct(rng, pool, 1, usable_distractor);
    return drawn.empty() ? -1 : drawn.front();
  };
  double v = rng.uniform();
  int n_negated = v < 0.35 ? 0 : (v < 0.8 ? 1 : 2);
  for (int i = 0; i < n_negated; ++i)
    if (int q = draw_distractor(); q >= 0) plan.negated.push_back(q);
  if (rng.chance(0.45))
    if (int q = draw_distractor(); q >= 0) plan.other_person.push_back(q);
  return plan;
}

}  // namespace sift::synth
