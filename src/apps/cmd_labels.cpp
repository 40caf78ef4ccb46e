// sift labels get | export: what a label store holds (src/store/label_store.h).
#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "apps/cli.h"
#include "apps/command.h"
#include "core/error.h"
#include "io/line_output.h"
#include "store/label_store.h"
#include "store/review_store.h"

namespace {

using sift::store::LabelStore;
using nlohmann::ordered_json;

std::string dump_line(const ordered_json& j) { return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace); }

ordered_json judgment_json(const sift::store::Judgment& j) {
  return {{"qualification", j.qualification}, {"name", j.name}, {"score", j.score},
          {"label", j.label},                 {"round", j.round}, {"rank", j.rank}};
}

void get_member(const std::string& store_location, const std::string& member) {
  std::optional<sift::store::MemberLabels> m =
      LabelStore::open(store_location, LabelStore::Access::read)->member(member);
  ordered_json out;
  out["member"] = member;
  out["labeled"] = m.has_value();
  if (m) {
    ordered_json accepted = ordered_json::array(), judgments = ordered_json::array();
    for (const sift::store::Judgment& j : m->judgments) {
      if (j.label) accepted.push_back(j.qualification);
      judgments.push_back(judgment_json(j));
    }
    out["accepted"] = std::move(accepted);
    out["artifact_version"] = m->artifact_version;
    out["threshold"] = m->threshold;
    out["rounds"] = m->rounds;
    out["stop_reason"] = m->stop_reason;
    out["input_hash"] = m->input_hash;
    out["run_id"] = m->run_id;
    out["labeled_at"] = m->labeled_at;
    if (m->profile) out["profile"] = *m->profile;
    out["judgments"] = std::move(judgments);
  }
  sift::apps::print_report(out);
}

void export_store(const std::string& store_location, const std::string& output) {
  std::unique_ptr<LabelStore> store = LabelStore::open(store_location, LabelStore::Access::read);
  // A SQLite store is a file (with its -wal beside it); a postgresql:// URI is not.
  const std::vector<sift::NamedInput> inputs = {{store_location, "--store"}, {store_location + "-wal", "--store"}};
  sift::LineOutput out(output, inputs);
  std::string batch;
  int64_t rows = 0;
  store->for_each_judgment([&](const sift::store::StoredJudgment& s) {
    ordered_json j;
    j["member"] = s.member;
    j["qualification"] = s.judgment.qualification;
    j["name"] = s.judgment.name;
    j["score"] = s.judgment.score;
    j["label"] = s.judgment.label;
    j["round"] = s.judgment.round;
    j["rank"] = s.judgment.rank;
    j["artifact_version"] = s.artifact_version;
    j["threshold"] = s.threshold;
    j["run_id"] = s.run_id;
    j["labeled_at"] = s.labeled_at;
    batch += dump_line(j);
    batch += '\n';
    if (batch.size() >= (1 << 20)) {
      out.write(sift::apps::output_rows(batch));
      batch.clear();
    }
    ++rows;
  });
  out.write(sift::apps::output_rows(batch));
  out.commit();
  if (!output.empty()) fmt::print(stderr, "sift labels export: {} judged pairs to {}\n", rows, output);
}

// Reviewed pairs as labeled rows (workflows/labeled_rows.h), one per member:
// {"id": member, "query": profile, "items": [{"id": qualification, "text": name}...], "labels": [0/1...]}.
void export_reviewed(const std::string& store_location, const std::string& output) {
  std::unique_ptr<sift::store::ReviewStore> store =
      sift::store::ReviewStore::open(store_location, sift::store::ReviewStore::Access::read);
  const std::vector<sift::NamedInput> inputs = {{store_location, "--store"}, {store_location + "-wal", "--store"}};
  sift::LineOutput out(output, inputs);
  std::string batch;
  const sift::store::ReviewedExportCounts counts = store->for_each_reviewed_member([&](const sift::store::ReviewedMember& m) {
    ordered_json items = ordered_json::array(), labels = ordered_json::array();
    for (size_t i = 0; i < m.items.size(); ++i) {
      items.push_back({{"id", m.qualifications[i]}, {"text", m.items[i]}});
      labels.push_back(m.labels[i] ? 1 : 0);
    }
    ordered_json j;
    j["id"] = m.member;
    j["query"] = m.profile;
    j["items"] = std::move(items);
    j["labels"] = std::move(labels);
    batch += dump_line(j);
    batch += '\n';
    if (batch.size() >= (1 << 20)) {
      out.write(batch);
      batch.clear();
    }
  });
  out.write(batch);
  out.commit();
  fmt::print(stderr, "sift labels export --reviewed: {} reviewed pairs of {} members{}\n", counts.pairs, counts.members,
             output.empty() || output == "-" ? "" : " to " + output);
  if (counts.stale > 0)
    fmt::print(stderr, "sift labels export --reviewed: {} reviews left out: their member's profile changed since\n",
               counts.stale);
  if (counts.no_profile > 0)
    fmt::print(stderr,
               "sift labels export --reviewed: {} reviews left out: their member was labeled by a sift that did not "
               "store profile texts (label it again with --refresh)\n",
               counts.no_profile);
}

// The judged pairs as a teacher's rows for `sift train --targets scores` (train/teacher_rows.h),
// one per member, in the shape of `sift score --echo`:
// {"id": member, "query": profile, "items": [{"id": qualification, "text": name}...],
//  "scores": [P(YES)...], "labels": [0/1...], "artifact": {"version", "threshold", "threshold_on"}}.
// The store keeps the threshold each member was labeled at, not what it was applied to (the raw
// score, or a calibrated probability when the labeler thresholds on it); a member whose stored
// labels are all score >= threshold says "score", any other "probability".
void export_teacher(const std::string& store_location, const std::string& output) {
  std::unique_ptr<LabelStore> store = LabelStore::open(store_location, LabelStore::Access::read);
  const std::vector<sift::NamedInput> inputs = {{store_location, "--store"}, {store_location + "-wal", "--store"}};
  sift::LineOutput out(output, inputs);
  std::string batch;
  int64_t members = 0, pairs = 0, no_profile = 0;
  store->for_each_member([&](const sift::store::MemberLabels& m) {
    if (!m.profile) {
      no_profile += 1;
      return;
    }
    ordered_json items = ordered_json::array(), scores = ordered_json::array(), labels = ordered_json::array();
    bool labels_are_score_thresholded = true;
    for (const sift::store::Judgment& j : m.judgments) {
      items.push_back({{"id", j.qualification}, {"text", j.name}});
      scores.push_back(j.score);
      labels.push_back(j.label ? 1 : 0);
      labels_are_score_thresholded = labels_are_score_thresholded && j.label == (j.score >= m.threshold);
    }
    ordered_json j;
    j["id"] = m.member;
    j["query"] = *m.profile;
    j["items"] = std::move(items);
    j["scores"] = std::move(scores);
    j["labels"] = std::move(labels);
    j["artifact"] = {{"version", m.artifact_version},
                     {"threshold", m.threshold},
                     {"threshold_on", labels_are_score_thresholded ? "score" : "probability"}};
    batch += dump_line(j);
    batch += '\n';
    if (batch.size() >= (1 << 20)) {
      out.write(batch);
      batch.clear();
    }
    members += 1;
    pairs += int64_t(m.judgments.size());
  });
  out.write(batch);
  out.commit();
  fmt::print(stderr, "sift labels export --teacher: {} judged pairs of {} members{}\n", pairs, members,
             output.empty() || output == "-" ? "" : " to " + output);
  if (no_profile > 0)
    fmt::print(stderr,
               "sift labels export --teacher: {} members left out: labeled by a sift that did not store profile "
               "texts (label them again with --refresh)\n",
               no_profile);
}

}  // namespace

SIFT_COMMAND(labels) {
  struct Args {
    std::string store, member, output;
    bool reviewed = false, teacher = false;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = app.add_subcommand("labels", "Read a label store written by `sift label`");
  cmd->require_subcommand(1);

  CLI::App* get = cmd->add_subcommand("get", "What is stored for one member: one JSON line");
  get->add_option("--store", args->store, "label store: a SQLite file or postgresql://...")->required();
  get->add_option("--member", args->member, "member id")->required();
  get->callback([args] { get_member(args->store, args->member); });

  CLI::App* exp = cmd->add_subcommand("export", "Every judged pair, one JSON line each, by member then rank");
  exp->add_option("--store", args->store, "label store: a SQLite file or postgresql://...")->required();
  exp->add_option("--output", args->output, "JSON-lines output, replaced when complete (default, or -: stdout)");
  exp->add_flag("--reviewed", args->reviewed,
                "instead: the pairs people reviewed (sift review) as training rows {id, query, items, labels}, one "
                "per member, for sift train and sift calibrate");
  exp->add_flag("--teacher", args->teacher,
                "instead: every judged pair as a teacher's rows {id, query, items, scores, labels, artifact}, one per "
                "member, for sift train --targets scores")
      ->excludes("--reviewed");
  exp->callback([args] {
    if (args->teacher) export_teacher(args->store, args->output);
    else if (args->reviewed) export_reviewed(args->store, args->output);
    else export_store(args->store, args->output);
  });
}
