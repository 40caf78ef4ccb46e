// run_batch and merge_shards on a real tiny labeler: the output does not depend on thread
// counts, tokenizer threads or how rows share forward calls; it holds sift score's scores;
// --errors-max stops at the right row and --resume finishes the job as one run would; an
// existing output and another job are refused; shards merge into the unsharded bytes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../label/tiny_labeler.h"
#include "batch/merge_shards.h"
#include "batch/run_batch.h"
#include "compressed_files.h"
#include "core/error.h"
#include "io/line_reader.h"
#include "workflows/score_stream.h"

namespace sift::batch {
namespace {

using ::testing::HasSubstr;
using sift::testing::batch_test_dir;
using sift::testing::read_test_file;

std::filesystem::path labeler_dir() {
  static const std::filesystem::path dir = [] {
    const std::filesystem::path d = sift::testing::tiny_labeler_checkpoint();
    std::ofstream(d / "sift.json") << nlohmann::json{
        {"format", std::string(kScoringFormat)},
        {"version", "batch-test-1"},
        {"query_template", "<|im_start|>user\nDoes the profile support the qualification?\nProfile: {query}\n"},
        {"item_template", "Qualification: {item}<|im_end|>\n<|im_start|>assistant\n"},
        {"yes", "YES"},
        {"no", "NO"},
        {"threshold", 0.5}};
    return d;
  }();
  return dir;
}

// Rows of varied length with ids, pass-through fields and, every 41st line, a bad row.
std::filesystem::path rows_file() {
  static const std::filesystem::path path = [] {
    std::string text;
    const char* words[] = {"python", "cloud", "sql", "nurse", "icu", "welding", "spark", "data", "care", "java"};
    for (int i = 0; i < 240; ++i) {
      if (i % 41 == 17) {
        text += i % 2 ? "{\"id\": \"bad\", \"query\": 3}\n" : "not json\n";
        continue;
      }
      std::string query, items;
      for (int w = 0; w < 3 + i % 23; ++w) query += std::string(w ? " " : "") + words[(i * 7 + w) % 10];
      for (int k = 0; k < i % 6; ++k) items += std::string(k ? "," : "") + "\"" + words[(i + k * 3) % 10] + "\"";
      text += "{\"id\": \"m" + std::to_string(i) + "\", \"query\": \"" + query + "\", \"items\": [" + items +
              "], \"member_id\": " + std::to_string(i * 11) + "}\n";
    }
    return sift::testing::write_test_file("rows.jsonl", text);
  }();
  return path;
}

ProgressReporter quiet_progress() {
  return ProgressReporter("sift batch", "rows", std::nullopt, {ProgressStyle::quiet}, [](std::string_view) {},
                          [] { return 0.0; });
}

BatchOptions options_for(const std::string& output_name) {
  BatchOptions options;
  options.model_dir = labeler_dir();
  options.input = rows_file();
  options.output = batch_test_dir() / output_name;
  std::filesystem::remove(options.output);
  std::filesystem::remove(progress_file_path(options.output));
  options.inference_threads = 1;
  options.checkpoint_seconds = 0;
  return options;
}

BatchSummary run(const BatchOptions& options) {
  ProgressReporter progress = quiet_progress();
  return run_batch(options, progress);
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
  return lines;
}

// Equal texts, or the first line where they differ (never the whole files).
::testing::AssertionResult same_text(const std::string& got, const std::string& expected) {
  if (got == expected) return ::testing::AssertionSuccess();
  std::istringstream a(got), b(expected);
  std::string line_a, line_b;
  for (int n = 1;; ++n) {
    const bool more_a = bool(std::getline(a, line_a)), more_b = bool(std::getline(b, line_b));
    if (!more_a || !more_b || line_a != line_b)
      return ::testing::AssertionFailure() << "line " << n << " differs:\n  got:      " << (more_a ? line_a : "(end)")
                                           << "\n  expected: " << (more_b ? line_b : "(end)");
  }
}

const std::string& reference_output() {
  static const std::string text = [] {
    const BatchOptions options = options_for("reference.jsonl");
    run(options);
    return read_test_file(options.output);
  }();
  return text;
}

TEST(RunBatch, OutputIsSiftScoresLinesStampedAndInOrder) {
  const auto lines = json_lines(reference_output());
  ASSERT_EQ(lines.size(), 240u);
  std::ifstream in(rows_file());
  sift::LineReader reader(in);
  std::ostringstream scored;
  const Labeler labeler = Labeler::load(labeler_dir());
  score_stream(labeler, reader, [&](std::string_view text) { scored << text; }, {});
  const auto expected = json_lines(scored.str());
  ASSERT_EQ(expected.size(), lines.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    nlohmann::json line = lines[i];
    if (!line.contains("error")) {
      EXPECT_EQ(line["artifact"], (nlohmann::json{{"version", "batch-test-1"}, {"threshold", 0.5}}));
      EXPECT_EQ(line["member_id"], int(i) * 11);
      line.erase("member_id");  // the pass-through field; the rest is the sift score line, artifact included
    }
    EXPECT_EQ(line, expected[i]) << "line " << i + 1;
  }
  EXPECT_EQ(std::count_if(lines.begin(), lines.end(), [](const auto& l) { return l.contains("error"); }), 6);
}

TEST(RunBatch, BytesDoNotDependOnThreadsOrPacking) {
  BatchOptions options = options_for("threads.jsonl");
  options.inference_threads = 2;
  options.tokenize_threads = 3;
  options.scoring.max_batch_tokens = 1000;  // a few rows per forward call (no row is longer)
  const BatchSummary summary = run(options);
  EXPECT_TRUE(same_text(read_test_file(options.output), reference_output()));
  EXPECT_EQ(summary.run.rows, 240);
  EXPECT_EQ(summary.run.errors, 6);
  EXPECT_EQ(summary.job.rows, 240);
  EXPECT_FALSE(summary.resumed);
}

TEST(RunBatch, ErrorsMaxStopsThenResumeFinishesTheJob) {
  BatchOptions options = options_for("errors.jsonl");
  options.errors_max = 2;
  try {
    run(options);
    FAIL() << "the third bad row should stop the job";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("line 100: "));  // bad rows at lines 18, 59, 100
    EXPECT_THAT(e.what(), HasSubstr("over --errors-max 2"));
  }
  const std::optional<JobProgress> stopped = read_checkpoint(progress_file_path(options.output));
  ASSERT_TRUE(stopped);
  EXPECT_EQ(stopped->totals.rows, 99);
  EXPECT_EQ(stopped->totals.errors, 2);
  EXPECT_TRUE(same_text(read_test_file(options.output), reference_output().substr(0, size_t(stopped->output.file.bytes))));
  options.errors_max = 10;
  options.resume = true;
  const BatchSummary summary = run(options);
  EXPECT_TRUE(summary.resumed);
  EXPECT_EQ(summary.run.rows, 240 - 99);
  EXPECT_EQ(summary.job.errors, 6);
  EXPECT_TRUE(same_text(read_test_file(options.output), reference_output()));
  // Resuming a complete job does nothing.
  const BatchSummary again = run(options);
  EXPECT_TRUE(again.already_complete);
  EXPECT_EQ(again.run.rows, 0);
  EXPECT_TRUE(same_text(read_test_file(options.output), reference_output()));
}

TEST(RunBatch, RefusesToOverwriteOrToResumeAnotherJob) {
  BatchOptions options = options_for("refuse.jsonl");
  run(options);
  try {
    run(options);
    FAIL() << "an existing output was accepted without --resume";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("never overwrites an output"));
  }
  options.resume = true;
  options.scoring.threshold = 0.25;
  try {
    run(options);
    FAIL() << "another threshold was accepted by --resume";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("threshold is 0.25 in this run, 0.5 in the job"));
  }
  EXPECT_TRUE(same_text(read_test_file(options.output), reference_output()));
  BatchOptions onto_input = options_for("unused.jsonl");
  onto_input.output = rows_file();
  EXPECT_THROW(run(onto_input), Error);
  BatchOptions onto_model = options_for("unused.jsonl");
  onto_model.output = labeler_dir() / "sift.json";
  onto_model.resume = true;
  EXPECT_THROW(run(onto_model), Error);
}

TEST(MergeShards, ShardsMergeIntoTheUnshardedBytes) {
  std::vector<std::filesystem::path> shards;
  for (int64_t k = 3; k >= 1; --k) {  // any order
    BatchOptions options = options_for("shard" + std::to_string(k) + ".jsonl");
    options.shard = Shard{k, 3};
    const BatchSummary summary = run(options);
    EXPECT_EQ(summary.run.rows, 80);
    shards.push_back(options.output);
  }
  const auto merged = batch_test_dir() / "merged.jsonl";
  std::filesystem::remove(merged);
  std::filesystem::remove(progress_file_path(merged));
  const MergeSummary summary = merge_shards(shards, merged);
  EXPECT_EQ(summary.rows, 240);
  EXPECT_TRUE(same_text(read_test_file(merged), reference_output()));
  // The merged job is the complete unsharded one: --resume finds nothing to do.
  BatchOptions options = options_for("unused.jsonl");
  options.output = merged;
  options.resume = true;
  EXPECT_TRUE(run(options).already_complete);
  // A missing shard is refused.
  const auto partial = batch_test_dir() / "partial.jsonl";
  std::filesystem::remove(partial);
  try {
    merge_shards({shards[0], shards[1]}, partial);
    FAIL() << "merged 2 of 3 shards";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("shard 1/3 is missing"));
  }
  EXPECT_FALSE(std::filesystem::exists(partial));
}

}  // namespace
}  // namespace sift::batch
