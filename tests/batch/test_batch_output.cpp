// OUT of sift batch: plain lines, or zstd frames closed at line ends after 1 MiB of text,
// whose bytes depend only on the lines; a resume from any checkpoint state (OUT cut back,
// the tail file's pending lines) writes what an uninterrupted output writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zstd.h>

#include <optional>

#include "batch/batch_output.h"
#include "batch/durable_file.h"
#include "compressed_files.h"
#include "core/error.h"
#include "io/content_hash.h"

namespace sift::batch {
namespace {

using ::testing::HasSubstr;
using sift::testing::batch_test_dir;
using sift::testing::read_test_file;
using sift::testing::write_test_file;
using ::testing::AllOf;

std::vector<std::string> sample_lines(size_t n) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < n; ++i)
    lines.push_back("{\"id\":" + std::to_string(i) + ",\"scores\":[" + std::to_string(double(i % 977) / 977.0) + "]," +
                    std::string(i % 300, 'x') + "}");
  return lines;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  return text;
}

std::string decompress_all(const std::string& bytes, size_t* frames = nullptr) {
  std::string text;
  size_t at = 0, n_frames = 0;
  while (at < bytes.size()) {
    const size_t frame = ZSTD_findFrameCompressedSize(bytes.data() + at, bytes.size() - at);
    EXPECT_FALSE(ZSTD_isError(frame));
    if (ZSTD_isError(frame)) break;
    const unsigned long long size = ZSTD_getFrameContentSize(bytes.data() + at, frame);
    std::string part(size_t(size), '\0');
    EXPECT_EQ(ZSTD_decompress(part.data(), part.size(), bytes.data() + at, frame), size);
    text += part;
    at += frame;
    ++n_frames;
  }
  if (frames) *frames = n_frames;
  return text;
}

std::filesystem::path fresh_path(const std::string& name) {
  const std::filesystem::path path = batch_test_dir() / name;
  std::filesystem::remove(path);
  std::filesystem::remove(tail_file_path(path));
  return path;
}

std::string write_whole(const std::filesystem::path& path, const std::vector<std::string>& lines, bool zstd) {
  auto out = create_batch_output(path, zstd);
  for (const std::string& line : lines) out->append_line(line);
  out->finish();
  out->remove_side_files();
  return read_test_file(path);
}

TEST(BatchOutput, PlainOutputIsTheLines) {
  const auto lines = sample_lines(500);
  EXPECT_EQ(write_whole(fresh_path("plain.jsonl"), lines, false), joined(lines));
}

TEST(BatchOutput, ZstdFramesCloseAfterAMebibyteAtLineEnds) {
  const auto lines = sample_lines(12000);  // ~2.3 MB of text: 3 frames
  const std::string text = joined(lines);
  size_t frames = 0;
  const auto path = fresh_path("frames.jsonl.zst");
  EXPECT_EQ(decompress_all(write_whole(path, lines, true), &frames), text);
  EXPECT_EQ(frames, size_t((text.size() + kZstdFrameBytes - 1) / kZstdFrameBytes));
  EXPECT_FALSE(std::filesystem::exists(tail_file_path(path)));
  // The same lines give the same bytes.
  EXPECT_EQ(write_whole(fresh_path("frames2.jsonl.zst"), lines, true), read_test_file(path));
  // No lines: one empty frame, a valid zstd file.
  EXPECT_EQ(decompress_all(write_whole(fresh_path("empty.jsonl.zst"), {}, true), &frames), "");
  EXPECT_EQ(frames, 1u);
}

// A run killed some lines after its checkpoint number `kill_after` (checkpoints after every
// `every` lines and whenever a frame closes, as the writer makes them): its files hold more
// than that checkpoint records (lines past it, maybe a closed frame). Returns the lines done
// and the output state at that checkpoint; nullopt when the run has fewer checkpoints.
std::optional<std::pair<size_t, OutputState>> killed_run(const std::filesystem::path& path,
                                                         const std::vector<std::string>& lines, bool zstd,
                                                         size_t every, size_t kill_after) {
  std::optional<std::pair<size_t, OutputState>> recorded;
  size_t checkpoints = 0, extra = 0;
  auto out = create_batch_output(path, zstd);
  for (size_t i = 0; i < lines.size(); ++i) {
    out->append_line(lines[i]);
    if (recorded && ++extra == 700) {
      out->sync();  // bytes beyond the checkpoint reach the files, then the kill
      return recorded;
    }
    if (!recorded && (out->frame_closed() || (i + 1) % every == 0)) {
      out->sync();
      if (checkpoints++ == kill_after) recorded = {{i + 1, out->state()}};
      out->checkpoint_done();
    }
  }
  return std::nullopt;
}

// A run killed where a resume's checks have most to check: plain, past OUT's first MiB (its
// SHA-256 midstate is not the initial one); zstd, with a frame in OUT and lines pending.
std::optional<std::pair<size_t, OutputState>> killed_for_checks(const std::filesystem::path& path, bool zstd) {
  auto killed = killed_run(path, sample_lines(12000), zstd, 1100, zstd ? 6 : 7);
  if (killed && (killed->second.file.bytes == 0 || (zstd ? killed->second.pending.bytes
                                                         : killed->second.file.midstate.bytes) == 0))
    ADD_FAILURE() << "the kill missed what it should have left";
  return killed;
}

class ResumedOutput : public ::testing::TestWithParam<bool> {};

TEST_P(ResumedOutput, FromAnyCheckpointWritesTheUninterruptedBytes) {
  const bool zstd = GetParam();
  const auto lines = sample_lines(12000);
  const std::string reference = write_whole(fresh_path("reference"), lines, zstd);
  int resumed = 0;
  for (size_t k = 0;; k += 2) {
    const auto path = fresh_path(zstd ? "resumed.jsonl.zst" : "resumed.jsonl");
    const auto killed = killed_run(path, lines, zstd, 1100, k);
    if (!killed) break;
    const auto [done, state] = *killed;
    auto out = resume_batch_output(path, zstd, state, int64_t(done), "OUT.progress");
    for (size_t i = done; i < lines.size(); ++i) out->append_line(lines[i]);
    out->finish();
    EXPECT_EQ(read_test_file(path), reference) << "resumed after " << done << " lines";
    ++resumed;
  }
  EXPECT_GE(resumed, 5);
}

INSTANTIATE_TEST_SUITE_P(PlainAndZstd, ResumedOutput, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "zstd" : "plain"; });

TEST(BatchOutput, ExistingFilesAreNeverOverwrittenAndShortFilesRefused) {
  const auto path = fresh_path("exists.jsonl");
  write_whole(path, sample_lines(3), false);
  EXPECT_THROW(create_batch_output(path, false), Error);
  EXPECT_EQ(read_test_file(path), joined(sample_lines(3)));
  OutputState past_the_end;
  past_the_end.file.bytes = int64_t(read_test_file(path).size()) + 5;
  try {
    resume_batch_output(path, false, past_the_end, 3, "OUT.progress");
    FAIL() << "a checkpoint past the end of OUT";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("changed outside sift batch"));
  }
}

// The digest is the plain SHA-256 of the bytes (OpenSSL's, an independent implementation),
// whatever the pieces they come in; resumed from a checkpoint's midstate in another
// FileDigest, reading only the bytes after it, it goes on to the same digest.
TEST(FileDigest, IsTheSha256OfTheBytesAndResumesFromItsMidstate) {
  std::string bytes;
  for (int i = 0; bytes.size() < size_t(5) * kMidstateBytes / 2; ++i) bytes += std::to_string(i * 7919) + "\n";
  FileDigest whole;
  for (size_t at = 0; at < bytes.size(); at += 100003) whole.add(std::string_view(bytes).substr(at, 100003));
  EXPECT_EQ(whole.checkpoint().sha256, sha256_hex(bytes));
  EXPECT_EQ(empty_file_checkpoint().sha256, sha256_hex(""));
  const auto path = batch_test_dir() / "digested";
  write_test_file("digested", bytes);
  for (int64_t cut : {int64_t(0), int64_t(1), kMidstateBytes - 1, kMidstateBytes, kMidstateBytes + 65,
                      2 * kMidstateBytes + 12345}) {
    SCOPED_TRACE(cut);
    FileDigest first;
    first.add(std::string_view(bytes).substr(0, size_t(cut)));
    const FileCheckpoint checkpoint = first.checkpoint();
    EXPECT_EQ(checkpoint.bytes, cut);
    EXPECT_EQ(checkpoint.midstate.bytes, cut / kMidstateBytes * kMidstateBytes);
    EXPECT_TRUE(midstate_in_place(checkpoint));
    FileDigest resumed = FileDigest::resume(path, checkpoint, "OUT.progress");
    resumed.add(std::string_view(bytes).substr(size_t(cut)));
    EXPECT_EQ(resumed.checkpoint(), whole.checkpoint());
  }
}

// A resume checks OUT and its tail file against the checkpoint before it cuts anything:
// a byte changed after the midstate, a wrong length or a wrong digest is refused, naming the
// file and the progress file, and both files are left byte for byte as they were.
TEST_P(ResumedOutput, AChangedFileIsRefusedAndLeftAsItWas) {
  const bool zstd = GetParam();
  const auto path = fresh_path(zstd ? "changed.jsonl.zst" : "changed.jsonl");
  const auto killed = killed_for_checks(path, zstd);
  ASSERT_TRUE(killed);
  const OutputState state = killed->second;
  // Byte `at` of `changed` flipped (none when at < 0), then a resume from `recorded`.
  const auto refused = [&](const std::filesystem::path& changed, int64_t at, const OutputState& recorded) {
    std::string bytes = read_test_file(changed);
    if (at >= 0) bytes[size_t(at)] ^= 1;
    write_test_file(changed.filename().string(), bytes);
    const std::string out = read_test_file(path), tail = zstd ? read_test_file(tail_file_path(path)) : "";
    try {
      resume_batch_output(path, zstd, recorded, int64_t(killed->first), "OUT.progress");
      ADD_FAILURE() << "resumed from a changed " << changed;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr(changed.string()), HasSubstr("OUT.progress")));
    }
    EXPECT_TRUE(read_test_file(path) == out) << "OUT was changed";
    EXPECT_TRUE(!zstd || read_test_file(tail_file_path(path)) == tail) << "the tail file was changed";
    if (at >= 0) bytes[size_t(at)] ^= 1;
    write_test_file(changed.filename().string(), bytes);
  };
  refused(path, state.file.bytes - 1, state);  // OUT's last checkpointed byte
  if (zstd) refused(tail_file_path(path), state.pending.bytes / 2, state);
  OutputState wrong_digest = state;
  wrong_digest.file.sha256[0] = wrong_digest.file.sha256[0] == 'a' ? 'b' : 'a';
  refused(path, -1, wrong_digest);
  OutputState too_long = state;
  too_long.file.bytes += 1 << 20;
  too_long.file.midstate.bytes += 1 << 20;
  refused(path, -1, too_long);
  // Unchanged, it resumes.
  EXPECT_NO_THROW(resume_batch_output(path, zstd, state, int64_t(killed->first), "OUT.progress"));
}

// A checkpoint whose row count was changed (with the line count and input position to agree
// with it) still disagrees with OUT: refused, naming OUT and the progress file, and nothing is
// cut; so is a complete job's.
TEST_P(ResumedOutput, ARowCountOutDoesNotHoldIsRefused) {
  const bool zstd = GetParam();
  const auto path = fresh_path(zstd ? "rows.jsonl.zst" : "rows.jsonl");
  const auto killed = killed_for_checks(path, zstd);
  ASSERT_TRUE(killed);
  const auto [done, state] = *killed;
  const std::string out = read_test_file(path), tail = zstd ? read_test_file(tail_file_path(path)) : "";
  for (const int64_t rows : {int64_t(done) - 1, int64_t(done) + 1, int64_t(done) + 5000}) {
    try {
      resume_batch_output(path, zstd, state, rows, "OUT.progress");
      ADD_FAILURE() << "resumed with " << rows << " rows recorded for " << done;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr(path.string()), HasSubstr("holds " + std::to_string(done) + " rows"),
                                  HasSubstr("OUT.progress records " + std::to_string(rows))));
    }
    EXPECT_TRUE(read_test_file(path) == out) << "OUT was changed";
    EXPECT_TRUE(!zstd || read_test_file(tail_file_path(path)) == tail) << "the tail file was changed";
  }
  EXPECT_NO_THROW(check_output_rows(path, zstd, state, int64_t(done), "OUT.progress"));
  const auto whole = fresh_path(zstd ? "whole.jsonl.zst" : "whole.jsonl");
  write_whole(whole, sample_lines(12000), zstd);
  OutputState complete;  // as the final checkpoint records it: the whole file, nothing pending
  complete.file.bytes = int64_t(read_test_file(whole).size());
  EXPECT_NO_THROW(check_output_rows(whole, zstd, complete, 12000, "OUT.progress"));
  EXPECT_THROW(check_output_rows(whole, zstd, complete, 12001, "OUT.progress"), Error);
}

// A symbolic link planted as OUT or its tail file (to the input, or any file) is never
// followed: a resume refuses it, naming it, before anything is cut; a new output's stale tail
// file (a link) is removed, not written through. The file it leads to is left byte for byte.
TEST(BatchOutput, ALinkPlantedAsOutOrItsTailIsNeverFollowed) {
  const auto victim = batch_test_dir() / "victim.jsonl";
  write_test_file("victim.jsonl", "the input\n");
  const auto path = fresh_path("linked.jsonl.zst");
  // The checkpoint as a frame closes: no lines pending, so a resume cuts the tail file to nothing.
  std::optional<std::pair<size_t, OutputState>> killed;
  for (size_t k = 0; !killed || killed->second.pending.bytes > 0; ++k) {
    killed = killed_run(fresh_path("linked.jsonl.zst"), sample_lines(12000), true, 1100, k);
    ASSERT_TRUE(killed);
  }
  const auto [done, state] = *killed;
  const auto tail = tail_file_path(path);
  std::filesystem::remove(tail);
  std::filesystem::create_symlink(victim, tail);
  for (const auto& [linked, recorded] : {std::pair{tail, state}, std::pair{path, OutputState{}}}) {
    if (linked == path) {  // OUT itself a link to the victim, recorded as empty (a job killed before any row)
      std::filesystem::remove(tail);
      std::filesystem::remove(path);
      std::filesystem::create_symlink(victim, path);
    }
    try {
      resume_batch_output(path, true, recorded, linked == path ? 0 : int64_t(done), "OUT.progress");
      ADD_FAILURE() << "resumed through the link " << linked;
    } catch (const Error& e) {
      EXPECT_THAT(e.what(), AllOf(HasSubstr(linked.string()), HasSubstr("symbolic link")));
    }
    EXPECT_EQ(read_test_file(victim), "the input\n");
  }
  std::filesystem::remove(path);
  std::filesystem::create_symlink(victim, tail);  // a stale tail, a link, beside a new output
  write_whole(path, sample_lines(10), true);
  EXPECT_EQ(read_test_file(victim), "the input\n");
  EXPECT_FALSE(std::filesystem::is_symlink(tail));
}

}  // namespace
}  // namespace sift::batch
