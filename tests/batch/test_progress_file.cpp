// OUT.progress: what a checkpoint writes is what --resume reads; anything else (a changed
// byte, a field removed, mistyped, added, or disagreeing with another, an earlier sift's
// file) is refused with the file named; a job fingerprint that differs names every field
// that does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "batch/job_fingerprint.h"
#include "batch/progress_file.h"
#include "compressed_files.h"
#include "core/error.h"
#include "io/content_hash.h"

namespace sift::batch {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using sift::testing::batch_test_dir;
using sift::testing::read_test_file;
using sift::testing::write_test_file;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A checkpoint whose fields agree: shard 2/3 of 31 lines holds 10 rows.
JobProgress sample_checkpoint() {
  JobProgress c;
  c.job = {{"artifact", "sha256:ab"}, {"threshold", 0.37908427711695021}, {"shard", "2/3"}};
  c.input_path = "in.jsonl.gz";
  c.lines_read = 31;
  c.input_offset = 99;
  c.resume = {4096, 77};
  c.output.file = {int64_t(3) << 20 | 5000, std::string(64, 'a'), {int64_t(3) << 20, std::string(64, 'b')}};
  c.output.pending = {321, std::string(64, 'c'), {0, std::string(64, 'd')}};
  c.totals = {10, 200, 3, 40000};
  c.complete = false;
  return c;
}

// The file with its checksum made again for its present content (what a careful forger does).
std::string with_checksum(std::string text) {
  const size_t last = text.rfind(" \"checksum\": ");
  text.resize(last);
  return text + " \"checksum\": \"sha256:" + sha256_hex(text) + "\"\n}\n";
}

TEST(ProgressFile, RoundTrips) {
  const JobProgress c = sample_checkpoint();
  const auto path = batch_test_dir() / "round.progress";
  write_checkpoint(path, c);
  const std::optional<JobProgress> read = read_checkpoint(path);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->job, c.job);  // the threshold's every bit
  EXPECT_EQ(read->input_path, c.input_path);
  EXPECT_EQ(read->lines_read, c.lines_read);
  EXPECT_EQ(read->input_offset, c.input_offset);
  EXPECT_EQ(read->resume, c.resume);
  EXPECT_EQ(read->output, c.output);
  EXPECT_EQ(read->totals.rows, 10);
  EXPECT_EQ(read->totals.labels, 200);
  EXPECT_EQ(read->totals.errors, 3);
  EXPECT_EQ(read->totals.prefill_tokens, 40000);
  EXPECT_FALSE(read->complete);
  EXPECT_FALSE(read_checkpoint(batch_test_dir() / "absent.progress"));
  // The checksum is the SHA-256 of the bytes before its line, as documented.
  const std::string text = read_test_file(path);
  EXPECT_EQ(with_checksum(text), text);
}

TEST(ProgressFile, AnythingElseIsRefusedNamingTheFile) {
  EXPECT_THAT(error_of([] { read_checkpoint(write_test_file("a.progress", "{not json")); }),
              AllOf(HasSubstr("a.progress"), HasSubstr("not a sift batch progress file")));
  EXPECT_THAT(error_of([] { read_checkpoint(write_test_file("b.progress", R"({"format": "other"})")); }),
              HasSubstr("not a sift batch progress file"));
  // An earlier sift's file, which carries no checksum: refused, saying how to go on.
  EXPECT_THAT(
      error_of([] { read_checkpoint(write_test_file("out.jsonl.progress", R"({"format": "sift.batch-progress/1"})")); }),
      AllOf(HasSubstr("out.jsonl.progress: written by an earlier sift"), HasSubstr("remove "),
            HasSubstr("out.jsonl and "), HasSubstr("to start it over")));
}

// Every field of the file, nested ones too, by its path ("output.midstate.state").
void leaves(const nlohmann::ordered_json& object, const std::string& prefix, std::vector<std::string>& paths) {
  for (const auto& [name, value] : object.items()) {
    paths.push_back(prefix + name);
    if (value.is_object() && name != "job") leaves(value, prefix + name + ".", paths);
  }
}

nlohmann::ordered_json& at_path(nlohmann::ordered_json& object, const std::string& path, std::string& last) {
  nlohmann::ordered_json* at = &object;
  size_t begin = 0;
  for (size_t dot; (dot = path.find('.', begin)) != std::string::npos; begin = dot + 1)
    at = &(*at)[path.substr(begin, dot - begin)];
  last = path.substr(begin);
  return *at;
}

// The field at `path` given another value of its type (an object: another object).
void value_changed(nlohmann::ordered_json& object, const std::string& path) {
  std::string name;
  nlohmann::ordered_json& value = at_path(object, path, name)[name];
  value = value.is_string() ? nlohmann::ordered_json(value.get<std::string>() + "0")
          : value.is_boolean() ? nlohmann::ordered_json(!value.get<bool>())
          : value.is_number() ? nlohmann::ordered_json(value.get<int64_t>() + 1)
                              : nlohmann::ordered_json(nlohmann::ordered_json::object({{"changed", 1}}));
}

// The file as write_checkpoint lays it out, from a changed object, its checksum made again or not.
std::string relaid(const nlohmann::ordered_json& object, const std::string& checksum, bool recompute) {
  nlohmann::ordered_json copy = object;
  copy.erase("checksum");
  std::string text = copy.dump(1);
  text.resize(text.size() - 2);
  text += ",\n \"checksum\": \"" + checksum + "\"\n}\n";
  return recompute ? with_checksum(text) : text;
}

// Each field changed (checksum kept: refused by it), removed, of the wrong type, or joined by
// a field the format does not have (checksum made again: refused by the schema): always an
// Error naming the file and, past the checksum, the field.
TEST(ProgressFile, EveryFieldTamperedIsRefused) {
  const auto path = batch_test_dir() / "tamper.progress";
  write_checkpoint(path, sample_checkpoint());
  const nlohmann::ordered_json original = nlohmann::ordered_json::parse(read_test_file(path));
  const std::string checksum = original["checksum"];
  ASSERT_EQ(relaid(original, checksum, false), read_test_file(path));  // the layout is write_checkpoint's
  std::vector<std::string> paths;
  leaves(original, "", paths);
  EXPECT_EQ(paths.size(), 27u);
  for (const std::string& field : paths) {
    SCOPED_TRACE(field);
    const auto refused = [&](const nlohmann::ordered_json& object, bool recompute) {
      write_test_file("tamper.progress", relaid(object, checksum, recompute));
      return error_of([&] { read_checkpoint(path); });
    };
    if (field == "checksum") continue;  // below
    nlohmann::ordered_json changed = original, removed = original, mistyped = original;
    std::string name;
    value_changed(changed, field);
    at_path(removed, field, name).erase(name);
    nlohmann::ordered_json& value = at_path(mistyped, field, name)[name];
    value = value.is_string() ? nlohmann::ordered_json(7) : nlohmann::ordered_json("7");
    // The format is read first: whatever else holds, a file of another format is refused.
    const std::string unchecked = field == "format" ? "format" : "checksum";
    EXPECT_THAT(refused(changed, false), AllOf(HasSubstr("tamper.progress"), HasSubstr(unchecked)));
    for (bool recompute : {false, true}) {
      const std::string why = recompute ? "\"" + field + "\"" : unchecked;
      EXPECT_THAT(refused(removed, recompute), AllOf(HasSubstr("tamper.progress"), HasSubstr(why)));
      EXPECT_THAT(refused(mistyped, recompute), AllOf(HasSubstr("tamper.progress"), HasSubstr(why)));
    }
    if (field != "format") {
      EXPECT_THAT(refused(removed, true), HasSubstr("field \"" + field + "\" is missing"));
    }
  }
  // The checksum itself: another value, none, or not a string.
  write_checkpoint(path, sample_checkpoint());
  const std::string text = read_test_file(path);
  const std::string body = text.substr(0, text.rfind(" \"checksum\": "));  // ends with ",\n"
  for (const std::string& tampered : {body + " \"checksum\": \"sha256:" + std::string(64, '0') + "\"\n}\n",
                                      body + " \"checksum\": 7\n}\n", body.substr(0, body.size() - 2) + "\n}\n"}) {
    write_test_file("tamper.progress", tampered);
    EXPECT_THAT(error_of([&] { read_checkpoint(path); }), AllOf(HasSubstr("tamper.progress"), HasSubstr("checksum")));
  }
  nlohmann::ordered_json extra = original;
  extra["output"]["note"] = "x";
  write_test_file("tamper.progress", relaid(extra, checksum, true));
  EXPECT_THAT(error_of([&] { read_checkpoint(path); }), HasSubstr("field \"output.note\" is not one of"));
}

// With the checksum made again, fields that disagree with each other are refused.
TEST(ProgressFile, FieldsThatDisagreeAreRefused) {
  const auto path = batch_test_dir() / "disagree.progress";
  const auto refused = [&](const std::function<void(JobProgress&)>& change) {
    JobProgress c = sample_checkpoint();
    change(c);
    write_checkpoint(path, c);
    return error_of([&] { read_checkpoint(path); });
  };
  EXPECT_EQ(refused([](JobProgress&) {}), "");
  EXPECT_THAT(refused([](JobProgress& c) { c.lines_read = 34; }), HasSubstr("records 10 rows, but shard 2/3 of 34"));
  EXPECT_THAT(refused([](JobProgress& c) { c.totals.rows = 11; }), HasSubstr("records 11 rows"));
  EXPECT_THAT(refused([](JobProgress& c) { c.totals.errors = 11; }), HasSubstr("11 error rows of 10 rows"));
  EXPECT_THAT(refused([](JobProgress& c) { c.resume.skip_bytes = 100; }), HasSubstr("past the 99 bytes read"));
  EXPECT_THAT(refused([](JobProgress& c) { c.complete = true; }), HasSubstr("a complete job with 321 bytes"));
  EXPECT_THAT(refused([](JobProgress& c) { c.job["shard"] = "4/3"; }), HasSubstr("\"job.shard\""));
  EXPECT_THAT(refused([](JobProgress& c) { c.job.erase("shard"); }), HasSubstr("\"job.shard\""));
  EXPECT_THAT(refused([](JobProgress& c) { c.output.file.midstate.bytes = 2 << 20; }),
              HasSubstr("\"output.midstate\" is not SHA-256's state at the last whole MiB"));
  EXPECT_THAT(refused([](JobProgress& c) { c.output.pending.midstate.bytes = 1 << 20; }), HasSubstr("\"pending.midstate\""));
  EXPECT_THAT(refused([](JobProgress& c) { c.output.file.midstate.state = std::string(64, 'G'); }),
              HasSubstr("\"output.midstate.state\" must be 64 lower-case hex digits"));
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

TEST(JobFingerprint, AnotherArithmeticIsRefusedNamingBoth) {
  // A job without "arithmetic" (sift's own, as every older job) and one scored by engines that
  // cannot prove their labeler: neither continues the other.
  const nlohmann::ordered_json local = {{"artifact", "sha256:1"}, {"threshold", 0.5}, {"shard", "1/1"}};
  nlohmann::ordered_json unverified = local;
  unverified["arithmetic"] = {{"engines", "unverified"}, {"model", "my-labeler"}};
  EXPECT_NO_THROW(check_same_arithmetic(local, local, "OUT.progress"));
  EXPECT_NO_THROW(check_same_arithmetic(unverified, unverified, "OUT.progress"));
  const std::string begun_here = error_of([&] { check_same_arithmetic(local, unverified, "OUT.progress"); });
  EXPECT_THAT(begun_here, AllOf(HasSubstr("OUT.progress: the job's rows were scored with sift's own arithmetic"),
                                HasSubstr("this run would score with the arithmetic of engines that cannot prove "
                                          "their labeler (no sift_fingerprint, as SGLang) serving \"my-labeler\""),
                                HasSubstr("without --engine, or with --engine on sift serve replicas")));
  const std::string begun_there = error_of([&] { check_same_arithmetic(unverified, local, "OUT.progress"); });
  EXPECT_THAT(begun_there, AllOf(HasSubstr("scored with the arithmetic of engines that cannot prove"),
                                 HasSubstr("this run would score with sift's own arithmetic"),
                                 HasSubstr("--engine on such engines serving \"my-labeler\"")));
  // Engines serving another model name are not the job's engines either.
  nlohmann::ordered_json renamed = unverified;
  renamed["arithmetic"]["model"] = "other";
  EXPECT_THAT(error_of([&] { check_same_arithmetic(unverified, renamed, "OUT.progress"); }),
              HasSubstr("serving \"other\""));
  EXPECT_THAT(error_of([&] { check_same_job(local, unverified, "OUT.progress"); }), HasSubstr("arithmetic is"));
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
