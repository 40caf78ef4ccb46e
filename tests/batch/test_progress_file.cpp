// OUT.progress: what a checkpoint writes is what --resume reads; anything else is refused
// with the file named; a job fingerprint that differs names every field that does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "batch/job_fingerprint.h"
#include "batch/progress_file.h"
#include "compressed_files.h"
#include "core/error.h"

namespace sift::batch {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using sift::testing::batch_test_dir;
using sift::testing::write_test_file;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ProgressFile, RoundTrips) {
  JobProgress c;
  c.job = {{"artifact", "sha256:ab"}, {"threshold", 0.37908427711695021}, {"shard", "2/3"}};
  c.input_path = "in.jsonl.gz";
  c.lines_read = 123456789012;
  c.input_offset = 99;
  c.resume = {4096, 77};
  c.output = {5000, 321};
  c.totals = {10, 200, 3, 40000};
  c.complete = true;
  const auto path = batch_test_dir() / "round.progress";
  write_checkpoint(path, c);
  const std::optional<JobProgress> read = read_checkpoint(path);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->job, c.job);  // the threshold's every bit
  EXPECT_EQ(read->input_path, c.input_path);
  EXPECT_EQ(read->lines_read, c.lines_read);
  EXPECT_EQ(read->input_offset, c.input_offset);
  EXPECT_EQ(read->resume, c.resume);
  EXPECT_EQ(read->output.output_bytes, 5000);
  EXPECT_EQ(read->output.pending_bytes, 321);
  EXPECT_EQ(read->totals.rows, 10);
  EXPECT_EQ(read->totals.labels, 200);
  EXPECT_EQ(read->totals.errors, 3);
  EXPECT_EQ(read->totals.prefill_tokens, 40000);
  EXPECT_TRUE(read->complete);
  EXPECT_FALSE(read_checkpoint(batch_test_dir() / "absent.progress"));
}

TEST(ProgressFile, AnythingElseIsRefusedNamingTheFile) {
  EXPECT_THAT(error_of([] { read_checkpoint(write_test_file("a.progress", "{not json")); }),
              AllOf(HasSubstr("a.progress"), HasSubstr("not a sift batch progress file")));
  EXPECT_THAT(error_of([] { read_checkpoint(write_test_file("b.progress", R"({"format": "other"})")); }),
              HasSubstr("not a sift batch progress file"));
  JobProgress c;
  c.job = nlohmann::ordered_json::object();
  const auto path = batch_test_dir() / "c.progress";
  write_checkpoint(path, c);
  std::string text = sift::testing::read_test_file(path);
  text.replace(text.find("\"rows\": 0"), 9, "\"rows\": -4");
  write_test_file("c.progress", text);
  EXPECT_THAT(error_of([&] { read_checkpoint(path); }), HasSubstr("\"rows\" must be a non-negative integer"));
}

TEST(JobFingerprint, ADifferentJobNamesWhatDiffers) {
  const nlohmann::ordered_json job = {{"artifact", "sha256:1"}, {"threshold", 0.5}, {"mode", "mis"}, {"shard", "1/1"}};
  EXPECT_NO_THROW(check_same_job(job, job, "OUT.progress"));
  nlohmann::ordered_json other = job;
  other["threshold"] = 0.3;
  other["mode"] = "prefix";
  const std::string message = error_of([&] { check_same_job(job, other, "OUT.progress"); });
  EXPECT_THAT(message, AllOf(HasSubstr("OUT.progress: this run is not the job being resumed"),
                             HasSubstr("threshold is 0.3 in this run, 0.5 in the job"),
                             HasSubstr("mode is \"prefix\" in this run, \"mis\" in the job")));
  EXPECT_THAT(message, ::testing::Not(HasSubstr("shard is")));  // only what differs
  // A field only one of them has (--weights q8 is recorded, auto is not) differs either way.
  nlohmann::ordered_json q8 = job;
  q8["weights"] = "q8";
  EXPECT_THAT(error_of([&] { check_same_job(q8, job, "OUT.progress"); }),
              HasSubstr("weights is absent in this run, \"q8\" in the job"));
  EXPECT_THAT(error_of([&] { check_same_job(job, q8, "OUT.progress"); }),
              HasSubstr("weights is \"q8\" in this run, absent in the job"));
}

TEST(JobFingerprint, InputIdentityIsSizeAndBothEnds) {
  std::string text(3 << 20, 'a');
  const auto a = input_identity(write_test_file("id_a", text));
  text[10] = 'b';  // the first MiB
  const auto b = input_identity(write_test_file("id_b", text));
  text[10] = 'a';
  text[text.size() - 10] = 'b';  // the last MiB
  const auto c = input_identity(write_test_file("id_c", text));
  text.push_back('\n');
  const auto d = input_identity(write_test_file("id_d", text));
  EXPECT_NE(a, b);
  EXPECT_NE(a, c);
  EXPECT_NE(a, d);
  EXPECT_EQ(a, input_identity(write_test_file("id_e", std::string(3 << 20, 'a'))));
  EXPECT_EQ(a["bytes"], 3 << 20);
}

}  // namespace
}  // namespace sift::batch
