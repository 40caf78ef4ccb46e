#include "synth/dataset.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_set>

#include <fmt/format.h>

#include "core/error.h"
#include "core/parallel.h"
#include "io/atomic_file.h"
#include "io/path_lock.h"
#include "retrieval/text_tokens.h"
#include "synth/catalog_index.h"
#include "synth/rng.h"

namespace sift::synth {

namespace {

constexpr uint64_t kProfileStream = 1;
constexpr uint64_t kNoiseStream = 2;

double ratio(int64_t numerator, int64_t denominator) {
  return denominator > 0 ? double(numerator) / double(denominator) : 0.0;
}

// Index of a distractor kind in SynthSummary::distractor_* (or -1).
int distractor_slot(EvidenceKind kind) {
  switch (kind) {
    case EvidenceKind::negated: return 0;
    case EvidenceKind::other_person: return 1;
    case EvidenceKind::near_miss: return 2;
    default: return -1;
  }
}

// Index into SynthSummary::retrieved_true_by_evidence: the most direct evidence for q.
size_t strongest_evidence(const Profile& profile, int q) {
  constexpr EvidenceKind kOrder[4] = {EvidenceKind::direct, EvidenceKind::title, EvidenceKind::alias,
                                      EvidenceKind::implied};
  for (size_t slot = 0; slot < 4; ++slot)
    for (const Evidence& e : profile.evidence)
      if (e.qualification == q && e.kind == kOrder[slot]) return slot;
  return 3;
}

nlohmann::ordered_json counts_json(const SplitCounts& c) {
  nlohmann::ordered_json j;
  j["members"] = c.members;
  j["pairs"] = c.pairs;
  j["positive_rate"] = ratio(c.reference_positives, c.pairs);
  j["truth_positive_rate"] = ratio(c.truth_positives, c.pairs);
  j["flip_rate"] = ratio(c.flips, c.pairs);
  return j;
}

}  // namespace

void SynthOptions::validate(int catalog_size) const {
  if (out_dir.empty()) fail_option("--out: an output directory is required");
  if (n_members < 1) fail_option("--members must be at least 1, got {}", n_members);
  if (n_candidates < 1) fail_option("--candidates (K) must be at least 1, got {}", n_candidates);
  if (n_candidates > catalog_size)
    fail_option("--candidates (K) = {} exceeds the catalog size {}", n_candidates, catalog_size);
  if (!std::isfinite(noise) || noise < 0 || noise > 0.5)
    fail_option("--noise must lie in [0, 0.5], got {}", noise);
  if (chunk_members < 1) fail_option("chunk size must be at least 1, got {}", chunk_members);
  split.validate();
  if (!pretraining_corpus.empty()) {
    if (corpus_tokens < 1) fail_option("--tokens must be at least 1, got {}", corpus_tokens);
    const std::filesystem::path corpus = std::filesystem::weakly_canonical(pretraining_corpus);
    for (const char* name : {"train.jsonl", "validation.jsonl", "test.jsonl", "catalog.jsonl", "summary.json"})
      if (corpus == std::filesystem::weakly_canonical(out_dir / name))
        fail_option("--pretraining-corpus {}: that is the world's own {}", pretraining_corpus.string(), name);
  }
}

std::string member_id(int64_t index) { return fmt::format("m{:06d}", index); }

MemberFactory::MemberFactory(const Catalog& catalog, uint64_t seed, int n_candidates, double noise,
                             SplitFractions split)
    : catalog_(catalog),
      generator_(catalog),
      index_(build_catalog_index(catalog)),
      seed_(seed),
      n_candidates_(n_candidates),
      noise_(noise),
      split_(split) {}

LabeledMember MemberFactory::make(int64_t index) const {
  LabeledMember member;
  member.index = index;
  member.id = member_id(index);
  member.split = assign_split(seed_, index, split_);
  member.profile = generator_.generate(derive_seed(seed_, kProfileStream, uint64_t(index)));
  member.candidates = retrieval::retrieve(index_, member.profile.text, n_candidates_);
  Rng noise(derive_seed(seed_, kNoiseStream, uint64_t(index)));
  for (const retrieval::ScoredDocument& candidate : member.candidates) {
    uint8_t truth = member.profile.is_true(candidate.document) ? 1 : 0;
    member.truth.push_back(truth);
    member.labels.push_back(noise.chance(noise_) ? uint8_t(1 - truth) : truth);
  }
  return member;
}

std::string MemberFactory::to_jsonl(const LabeledMember& member) const {
  nlohmann::ordered_json items = nlohmann::ordered_json::array();
  for (const retrieval::ScoredDocument& candidate : member.candidates) {
    const Qualification& q = catalog_[candidate.document];
    items.push_back({{"id", q.id}, {"text", q.name}});
  }
  nlohmann::ordered_json line;
  line["id"] = member.id;
  line["query"] = member.profile.text;
  line["items"] = std::move(items);
  line["labels"] = member.labels;
  line["truth"] = member.truth;
  return line.dump();
}

void SynthSummary::add(const LabeledMember& member) {
  SplitCounts& c = splits[size_t(member.split)];
  c.members += 1;
  c.pairs += int64_t(member.candidates.size());
  for (size_t i = 0; i < member.candidates.size(); ++i) {
    c.reference_positives += member.labels[i];
    c.truth_positives += member.truth[i];
    c.flips += member.labels[i] != member.truth[i];
  }
  auto retrieved = [&](int q) {
    return std::any_of(member.candidates.begin(), member.candidates.end(),
                       [q](const retrieval::ScoredDocument& d) { return d.document == q; });
  };
  const Profile& profile = member.profile;
  for (int q : profile.truth) {
    truth_total += 1;
    truth_retrieved += retrieved(q);
  }
  for (int q : profile.held) {
    written_total += 1;
    written_retrieved += retrieved(q);
  }
  for (const Evidence& e : profile.evidence)
    if (int slot = distractor_slot(e.kind); slot >= 0) {
      distractor_total[size_t(slot)] += 1;
      distractor_retrieved[size_t(slot)] += retrieved(e.qualification);
    }
  for (size_t i = 0; i < member.candidates.size(); ++i)
    if (member.truth[i]) retrieved_true_by_evidence[strongest_evidence(profile, member.candidates[i].document)] += 1;
  profile_words += int64_t(retrieval::count_words(profile.text));
}

SplitCounts SynthSummary::all() const {
  SplitCounts total;
  for (const SplitCounts& c : splits) {
    total.members += c.members;
    total.pairs += c.pairs;
    total.reference_positives += c.reference_positives;
    total.truth_positives += c.truth_positives;
    total.flips += c.flips;
  }
  return total;
}

nlohmann::ordered_json SynthSummary::to_json() const {
  SplitCounts total = all();
  nlohmann::ordered_json j;
  j["members"] = total.members;
  j["pairs"] = total.pairs;
  j["candidates_per_member"] = options.n_candidates;
  j["seed"] = options.seed;
  j["catalog_size"] = catalog_size;
  j["noise"] = options.noise;
  j["split_fractions"] = {{"train", options.split.train},
                          {"validation", options.split.validation},
                          {"test", options.split.test}};
  j["positive_rate"] = ratio(total.reference_positives, total.pairs);
  j["truth_positive_rate"] = ratio(total.truth_positives, total.pairs);
  j["flip_rate"] = ratio(total.flips, total.pairs);
  j["truth_recall_at_k"] = ratio(truth_retrieved, truth_total);
  j["written_truth_recall_at_k"] = ratio(written_retrieved, written_total);
  j["mean_truth_per_member"] = ratio(truth_total, total.members);
  j["mean_profile_words"] = ratio(profile_words, total.members);
  nlohmann::ordered_json distractors;
  const char* names[3] = {"negated", "other_person", "near_miss"};
  for (size_t k = 0; k < 3; ++k)
    distractors[names[k]] = {{"mentions", distractor_total[k]},
                             {"retrieved", distractor_retrieved[k]},
                             {"retrieved_rate", ratio(distractor_retrieved[k], distractor_total[k])}};
  j["distractors"] = std::move(distractors);
  j["retrieved_true_by_evidence"] = {{"direct", retrieved_true_by_evidence[0]},
                                     {"title", retrieved_true_by_evidence[1]},
                                     {"alias", retrieved_true_by_evidence[2]},
                                     {"implied", retrieved_true_by_evidence[3]}};
  nlohmann::ordered_json by_split;
  for (Split s : kAllSplits) by_split[std::string(split_name(s))] = counts_json(splits[size_t(s)]);
  j["splits"] = std::move(by_split);
  if (corpus) j["pretraining_corpus"] = corpus->to_json();
  return j;
}

SynthSummary write_synth_dataset(const SynthOptions& options, const Catalog& catalog) {
  options.validate(catalog.size());
  create_output_directory(options.out_dir, "--out");
  const PathLock lock(options.out_dir);  // two runs never write one folder at once

  // Each file replaces an older one only once it is complete (io/atomic_file.h).
  auto open = [&](const std::string& name) { return std::make_unique<AtomicFile>(options.out_dir / name); };

  std::string catalog_text;
  for (int q = 0; q < catalog.size(); ++q) catalog_text += catalog.to_json(q).dump() + '\n';
  std::unique_ptr<AtomicFile> catalog_file = open("catalog.jsonl");
  catalog_file->write(catalog_text);

  std::array<std::unique_ptr<AtomicFile>, 3> split_files;
  for (Split s : kAllSplits) split_files[size_t(s)] = open(std::string(split_name(s)) + ".jsonl");

  MemberFactory factory(catalog, options.seed, options.n_candidates, options.noise, options.split);
  SynthSummary summary;
  summary.options = options;
  summary.catalog_size = catalog.size();

  // Chunks: generate in parallel (each member has its own seed), write in member order.
  std::unordered_set<std::string> world_profiles;  // every split's, kept out of the corpus
  std::vector<LabeledMember> chunk;
  std::vector<std::string> lines;
  for (int64_t begin = 0; begin < options.n_members; begin += options.chunk_members) {
    int64_t n = std::min(options.chunk_members, options.n_members - begin);
    chunk.assign(size_t(n), LabeledMember{});
    lines.assign(size_t(n), std::string{});
    parallel_for(n, [&](int64_t i) {
      chunk[size_t(i)] = factory.make(begin + i);
      lines[size_t(i)] = factory.to_jsonl(chunk[size_t(i)]);
    });
    std::array<std::string, 3> text;
    for (int64_t i = 0; i < n; ++i) {
      const LabeledMember& member = chunk[size_t(i)];
      text[size_t(member.split)] += lines[size_t(i)] + '\n';
      summary.add(member);
      if (!options.pretraining_corpus.empty()) world_profiles.insert(member.profile.text);
    }
    for (Split s : kAllSplits) split_files[size_t(s)]->write(text[size_t(s)]);
    if (options.on_progress) options.on_progress(begin + n, options.n_members);
  }
  if (!options.pretraining_corpus.empty())
    summary.corpus = write_pretraining_corpus(
        {options.pretraining_corpus, options.corpus_tokens, options.seed, options.corpus_skills_sections},
        catalog, world_profiles);
  std::unique_ptr<AtomicFile> summary_file = open("summary.json");
  summary_file->write(summary.to_json().dump(2) + '\n');
  catalog_file->commit();
  for (Split s : kAllSplits) split_files[size_t(s)]->commit();
  summary_file->commit();
  return summary;
}

}  // namespace sift::synth
