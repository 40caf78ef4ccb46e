#include "synth/pretraining_corpus.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/error.h"
#include "core/parallel.h"
#include "io/atomic_file.h"
#include "synth/profile.h"
#include "synth/profile_vocab.h"
#include "synth/rng.h"

namespace sift::synth {
namespace {

// Seed streams (synth/rng.h): 1 = a world member's profile, 2 = its label noise, 3 = its split.
constexpr uint64_t kCorpusStream = 4;         // corpus document i
constexpr uint64_t kRedrawStream = 5;         // another draw of a profile equal to a world member's
constexpr int64_t kDocumentsPerChunk = 1024;  // generated in parallel, appended in order

constexpr double kProfileShare = 0.75, kCatalogShare = 0.125;  // the rest: lists
constexpr double kSkillsSectionRate = 0.7;

const std::vector<std::string_view> kSectionHeaders = {
    "Skills:", "Top skills:", "Key skills:", "What I bring:", "Skills I list:"};

// "- A\n- B" or "1. A\n2. B", in one of the forms people write.
std::string as_list(const std::vector<std::string>& items, Rng& rng) {
  static const std::vector<std::string_view> bullets = {"- ", "* ", "\u2022 "};
  static const std::vector<std::string_view> numbering = {"{}. ", "{}) ", "{}: "};
  const bool numbered = rng.chance(0.5);
  const std::string_view bullet = rng.pick(bullets);
  const std::string_view number = rng.pick(numbering);
  std::string text;
  for (size_t k = 0; k < items.size(); ++k) {
    if (k > 0) text += '\n';
    text += numbered ? fmt::format(fmt::runtime(number), k + 1) : std::string(bullet);
    text += items[k];
  }
  return text;
}

// Up to n of `pool`, in a random order.
std::vector<int> sample(std::vector<int> pool, size_t n, Rng& rng) {
  rng.shuffle(pool);
  pool.resize(std::min(n, pool.size()));
  return pool;
}

std::vector<std::string> names_of(const Catalog& catalog, const std::vector<int>& qualifications) {
  std::vector<std::string> names;
  for (int q : qualifications) names.push_back(catalog[q].name);
  return names;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (size_t i = 0; i < words.size(); ++i) {
    if (i > 0) out += i + 1 == words.size() ? " and " : ", ";
    out += words[i];
  }
  return out;
}

}  // namespace

CorpusDocuments::CorpusDocuments(const Catalog& catalog, uint64_t seed,
                                 const std::unordered_set<std::string>& world_profiles, bool skills_sections)
    : catalog_(catalog),
      generator_(catalog),
      seed_(seed),
      skills_sections_(skills_sections),
      world_profiles_(world_profiles) {
  for (int q = 0; q < catalog.size(); ++q)
    if (!catalog[q].titles.empty()) roles_.push_back(q);
}

CorpusDocument CorpusDocuments::make(int64_t index) const {
  const uint64_t document_seed = derive_seed(seed_, kCorpusStream, uint64_t(index));
  Rng rng(document_seed);
  const double u = rng.uniform();
  if (u < kProfileShare) return profile(document_seed, rng);
  if (u < kProfileShare + kCatalogShare)
    return {CorpusDocumentKind::catalog, description(int(rng.below(size_t(catalog_.size()))), rng), 0};
  return {CorpusDocumentKind::list, list(rng), 0};
}

// A member of the corpus's own population; never one of the world's.
CorpusDocument CorpusDocuments::profile(uint64_t document_seed, Rng& rng) const {
  CorpusDocument d{CorpusDocumentKind::profile, {}, 0};
  Profile p = generator_.generate(document_seed);
  while (world_profiles_.contains(p.text))
    p = generator_.generate(derive_seed(document_seed, kRedrawStream, uint64_t(++d.redraws)));
  d.text = p.text;
  // The skills section lists some of p.truth, the member's clean truth.
  if (skills_sections_ && rng.chance(kSkillsSectionRate) && !p.truth.empty()) {
    const auto n = size_t(rng.between(2, 8));
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
    d.text += '\n';
    d.text += rng.pick(kSectionHeaders);
    d.text += '\n';
    d.text += as_list(names_of(catalog_, sample(p.truth, n, rng)), rng);
  }
  return d;
}

// What a reference text says about one qualification: the first sentence, then the others in
// a random order.
std::string CorpusDocuments::description(int q, Rng& rng) const {
  const Qualification& qual = catalog_[q];
  const char* kind = qual.kind == QualificationKind::skill           ? "a skill"
                     : qual.kind == QualificationKind::certification ? "a certification"
                     : qual.kind == QualificationKind::language      ? "a language"
                                                                     : "an industry domain";
  std::vector<std::string> sentences;
  if (!qual.aliases.empty())
    sentences.push_back(rng.chance(0.5) ? fmt::format("It is also written {}.", joined(qual.aliases))
                                        : fmt::format("Other names for {}: {}.", qual.name, joined(qual.aliases)));
  for (const std::string& title : qual.titles)
    sentences.push_back(rng.chance(0.5) ? fmt::format("A {} has {}.", title, qual.name)
                                        : fmt::format("People who work as {} hold {}.", title, qual.name));
  if (!qual.implies.empty()) {
    const std::string implied = joined(names_of(catalog_, qual.implies));
    sentences.push_back(rng.chance(0.5) ? fmt::format("Holding {} means holding {} too.", qual.name, implied)
                                        : fmt::format("Anyone with {} also has {}.", qual.name, implied));
  }
  for (int other : qual.near_misses)
    sentences.push_back(fmt::format("{} is not {}: the names look alike, but they are different qualifications.",
                                    qual.name, catalog_[other].name));
  rng.shuffle(sentences);
  std::string text = fmt::format("{}\n{} is {} in {}.", qual.name, qual.name, kind, qual.category);
  for (const std::string& s : sentences) text += " " + s;
  return text;
}

// A category's qualifications, or what the people of a job title list.
std::string CorpusDocuments::list(Rng& rng) const {
  if (rng.chance(0.5)) {
    const std::string& category = rng.pick(catalog_.categories());
    return category + ":\n" +
           as_list(names_of(catalog_, sample(catalog_.in_category(category), size_t(rng.between(3, 10)), rng)), rng);
  }
  const int role = rng.pick(roles_);
  std::vector<int> pool;
  for (const vocab::Neighbourhood& n : vocab::neighbourhoods())
    if (n.role_category == catalog_[role].category)
      for (std::string_view category : n.skill_categories)
        for (int q : catalog_.in_category(category)) pool.push_back(q);
  if (pool.empty()) pool = catalog_.in_category(catalog_[role].category);
  std::vector<int> items = {role};
  for (int q : sample(pool, size_t(rng.between(3, 8)), rng))
    if (q != role) items.push_back(q);
  return fmt::format("What a {} lists:\n", rng.pick(catalog_[role].titles)) + as_list(names_of(catalog_, items), rng);
}

nlohmann::ordered_json CorpusSummary::to_json() const {
  nlohmann::ordered_json j;
  j["documents"] = documents;
  j["profiles"] = profiles;
  j["catalog_descriptions"] = catalog_descriptions;
  j["lists"] = lists;
  j["bytes"] = bytes;
  j["estimated_tokens"] = bytes / kCorpusBytesPerToken;
  j["profiles_redrawn"] = profiles_redrawn;
  return j;
}

CorpusSummary write_pretraining_corpus(const CorpusOptions& options, const Catalog& catalog,
                                       const std::unordered_set<std::string>& world_profiles) {
  if (options.tokens < 1) fail_option("--tokens must be at least 1, got {}", options.tokens);
  const CorpusDocuments documents(catalog, options.seed, world_profiles, options.skills_sections);
  AtomicFile file(options.path);
  CorpusSummary summary;
  const int64_t target_bytes = options.tokens * kCorpusBytesPerToken;
  std::vector<CorpusDocument> chunk;
  for (int64_t begin = 0; summary.bytes < target_bytes; begin += kDocumentsPerChunk) {
    chunk.assign(size_t(kDocumentsPerChunk), CorpusDocument{});
    parallel_for(kDocumentsPerChunk, [&](int64_t i) { chunk[size_t(i)] = documents.make(begin + i); });
    std::string text;
    for (const CorpusDocument& d : chunk) {
      if (summary.bytes >= target_bytes) break;  // in document order: the same file whatever the threads
      text += nlohmann::json{{"text", d.text}}.dump() + '\n';
      summary.documents += 1;
      summary.bytes += int64_t(d.text.size());
      summary.profiles += d.kind == CorpusDocumentKind::profile;
      summary.catalog_descriptions += d.kind == CorpusDocumentKind::catalog;
      summary.lists += d.kind == CorpusDocumentKind::list;
      summary.profiles_redrawn += d.redraws;
    }
    file.write(text);
  }
  file.commit();
  return summary;
}

}  // namespace sift::synth
