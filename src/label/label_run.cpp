#include "label/label_run.h"

#include <memory>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/utc_time.h"
#include "label/catalog_file.h"
#include "io/content_hash.h"
#include "label/jsonl_file.h"
#include "label/profile_row.h"
#include "label/round_judge.h"
#include "label/run_identity.h"
#include "scoring/artifact.h"
#include "tokenizer/utf8.h"

namespace sift::label {

namespace {

// Profiles whose stored state is looked up in one query.
constexpr size_t kProfilesPerChunk = 256;
// A report quotes at most this much of what it is about (a parser message quotes the input).
constexpr size_t kMaxReportBytes = 400;

struct PendingProfile {
  int64_t line = 0;
  std::string where;  // "file:line"
  ProfileRow row;
  std::string input_hash;
};

class LabelRun {
 public:
  LabelRun(const LabelRunOptions& options, ProgressReporter& progress)
      : options_(options),
        progress_(progress),
        artifact_(load_scoring_artifact(options.model_dir / "sift.json")),
        catalog_(LabelCatalog::read(options.catalog, [this](const std::string& m) { report(m); })),
        store_(store::LabelStore::open(options.store, store::LabelStore::Access::write)),
        run_id_(new_run_id()) {
    counts_.errors = catalog_.malformed_rows();
  }

  LabelRunSummary run() {
    const std::string fingerprint = artifact_fingerprint(options_.model_dir);
    if (std::optional<std::string> other = store_->other_fingerprint(artifact_.version, fingerprint))
      report(fmt::format("sift label: warning: the labeler's files differ from those of an earlier run with the same "
                         "version \"{}\" ({} now, {} then); labels stored under that version are kept. Give the "
                         "labeler a new version in sift.json, or use --refresh",
                         artifact_.version, fingerprint, *other));
    store_->begin_run({run_id_, utc_timestamp(), artifact_.version, fingerprint, threshold(), options_json()});

    JsonlFile file(options_.profiles);
    std::vector<PendingProfile> chunk;
    std::string text;
    while (file.next(text)) {
      if (std::optional<PendingProfile> pending = read_profile(file, text)) chunk.push_back(std::move(*pending));
      if (chunk.size() == kProfilesPerChunk) process(chunk);
    }
    process(chunk);
    lines_done_ = file.line_number();
    progress_.update(lines_done_, detail());

    store_->finish_run(run_id_, utc_timestamp(), counts_);
    LabelRunSummary summary;
    summary.run_id = run_id_;
    summary.counts = counts_;
    summary.seconds = progress_.elapsed_seconds();
    summary.model_seconds = judge_ ? judge_->model_seconds() : 0.0;
    summary.prefill_tokens = prefill_tokens_;
    return summary;
  }

 private:
  // Reports are valid UTF-8 of bounded length whatever bytes the input held.
  void report(const std::string& message) {
    progress_.message(utf8::lossy(message.size() > kMaxReportBytes ? message.substr(0, kMaxReportBytes) + "..." : message));
  }

  std::string options_json() const {
    nlohmann::ordered_json j;
    j["model"] = options_.model_dir.string();
    j["catalog"] = options_.catalog.string();
    j["profiles"] = options_.profiles.string();
    j["k"] = options_.rounds.k;
    j["max_rounds"] = options_.rounds.max_rounds;
    j["stop_below"] = options_.rounds.stop_below;
    j["refresh"] = options_.refresh;
    j["shard"] = options_.shard.to_string();
    j["weights"] = std::string(weight_storage_name(options_.weights));
    if (options_.threshold) j["threshold"] = *options_.threshold;
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }

  std::string detail() const {
    return fmt::format("{} judged, {} unchanged, {} pairs, {} accepted, {} errors", counts_.judged,
                       counts_.skipped_unchanged, counts_.pairs_judged, counts_.accepted, counts_.errors);
  }

  // The line's profile if it is well formed, of this shard and not seen before.
  std::optional<PendingProfile> read_profile(const JsonlFile& file, const std::string& text) {
    try {
      PendingProfile p{file.line_number(), file.where(), parse_profile_row(parse_object_line(text, file.too_long())),
                       ""};
      if (!options_.shard.contains(p.row.member)) return std::nullopt;
      auto [it, inserted] = line_of_member_.emplace(p.row.member, p.line);
      if (!inserted) fail("member \"{}\" repeats line {}", p.row.member, it->second);
      p.input_hash = profile_input_hash(p.row);
      counts_.profiles += 1;
      return p;
    } catch (const Error& e) {
      counts_.errors += 1;
      report(file.where() + ": " + e.what());
      return std::nullopt;
    }
  }

  void process(std::vector<PendingProfile>& chunk) {
    std::vector<std::string> members;
    for (const PendingProfile& p : chunk) members.push_back(p.row.member);
    const std::unordered_map<std::string, store::MemberState> states = store_->member_states(members);
    std::vector<const PendingProfile*> group;  // to judge, scored together
    for (const PendingProfile& p : chunk) {
      auto stored = states.find(p.row.member);
      const bool current = !options_.refresh && stored != states.end() &&
                           stored->second.input_hash == p.input_hash &&
                           stored->second.artifact_version == artifact_.version &&
                           stored->second.threshold == threshold();
      if (current) counts_.skipped_unchanged += 1;
      else group.push_back(&p);
      if (int64_t(group.size()) >= options_.profiles_together) label_members(group);
      lines_done_ = p.line;
      progress_.update(lines_done_, detail());
    }
    label_members(group);
    progress_.update(lines_done_, detail());
    chunk.clear();
  }

  // Judges the group's profiles in rounds, together, and stores each one's labels.
  void label_members(std::vector<const PendingProfile*>& group) {
    if (group.empty()) return;
    RoundJudge& round_judge = judge();  // a labeler that does not load ends the run
    std::vector<std::vector<Candidate>> ranked(group.size());
    std::vector<ProfileCandidates> profiles;
    std::vector<const PendingProfile*> judged;
    for (size_t i = 0; i < group.size(); ++i) try {
        ranked[i] = candidates_of(group[i]->row);
        profiles.push_back({group[i]->row.text, &ranked[i]});
        judged.push_back(group[i]);
      } catch (const Error& e) {
        member_failed(*group[i], e.what());
      }
    group.clear();
    std::vector<RoundsOutcome> outcomes = judge_in_rounds(round_judge, profiles, options_.rounds);
    for (size_t i = 0; i < judged.size(); ++i) {
      if (!outcomes[i].error.empty()) member_failed(*judged[i], outcomes[i].error);
      else store_member(*judged[i], std::move(outcomes[i]));
    }
  }

  void member_failed(const PendingProfile& p, const std::string& why) {
    counts_.errors += 1;
    report(fmt::format("{}: member \"{}\": {}", p.where, p.row.member, why));
  }

  void store_member(const PendingProfile& p, RoundsOutcome outcome) {
    store::MemberLabels labels;
    labels.member = p.row.member;
    labels.input_hash = p.input_hash;
    labels.artifact_version = artifact_.version;
    labels.threshold = judge_->threshold();
    labels.rounds = outcome.rounds;
    labels.stop_reason = stop_reason_name(outcome.stop);
    labels.run_id = run_id_;
    labels.labeled_at = utc_timestamp();
    labels.profile = p.row.text;
    labels.judgments = std::move(outcome.judgments);
    store_->replace_member(labels);  // a store failure ends the run: later rows would fail alike

    counts_.judged += 1;
    counts_.rounds += outcome.rounds;
    counts_.pairs_judged += int64_t(labels.judgments.size());
    counts_.accepted += outcome.accepted;
    prefill_tokens_ += outcome.prefill_tokens;
  }

  // The threshold labels use: --threshold, else sift.json's.
  double threshold() const { return options_.threshold.value_or(artifact_.threshold); }

  // Given candidates (catalog ids, in order) or BM25 over the catalog.
  std::vector<Candidate> candidates_of(const ProfileRow& row) const {
    std::vector<Candidate> ranked;
    if (row.candidates) {
      for (size_t i = 0; i < row.candidates->size(); ++i) {
        const int entry = catalog_.find((*row.candidates)[i]);
        if (entry < 0) fail("candidates[{}] \"{}\" is not in the catalog", i, (*row.candidates)[i]);
        ranked.push_back({catalog_[entry].id, catalog_[entry].name});
      }
      return ranked;
    }
    for (int entry : catalog_.retrieve(row.text, int(options_.rounds.max_candidates())))
      ranked.push_back({catalog_[entry].id, catalog_[entry].name});
    return ranked;
  }

  RoundJudge& judge() {
    if (!judge_) {
      Labeler labeler = options_.load_labeler();
      if (labeler.version() != artifact_.version)
        fail("{}: sift.json changed while the run started (version \"{}\", now \"{}\")",
             options_.model_dir.string(), artifact_.version, labeler.version());
      judge_ = std::make_unique<RoundJudge>(std::move(labeler), options_.threshold);
    }
    return *judge_;
  }

  const LabelRunOptions& options_;
  ProgressReporter& progress_;
  ScoringArtifact artifact_;
  LabelCatalog catalog_;
  std::unique_ptr<store::LabelStore> store_;
  std::string run_id_;
  std::unique_ptr<RoundJudge> judge_;
  store::RunCounts counts_;
  int64_t prefill_tokens_ = 0;
  int64_t lines_done_ = 0;
  std::unordered_map<std::string, int64_t> line_of_member_;
};

}  // namespace

LabelRunSummary run_label(const LabelRunOptions& options, ProgressReporter& progress) {
  options.rounds.validate();
  return LabelRun(options, progress).run();
}

}  // namespace sift::label
