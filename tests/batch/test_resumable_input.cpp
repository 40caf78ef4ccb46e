// Input of sift batch: plain, gzip and zstd files (several members/frames) give the same
// lines, and every line's resume position, given to a new reader, yields exactly the lines
// after it (what --resume relies on). Corrupt and truncated files are errors naming the byte.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "compressed_files.h"
#include "core/error.h"

namespace sift::batch {
namespace {

using ::testing::HasSubstr;
using sift::testing::write_test_file;

// Lines of varied length, some empty, the last without "\n"; long enough to span read blocks.
std::string sample_text() {
  std::string text;
  for (int i = 0; i < 3000; ++i) {
    text += "{\"id\": " + std::to_string(i) + ", \"text\": \"" + std::string(size_t(i * 37 % 700), 'a' + char(i % 26)) + "\"}";
    text += (i % 97 == 5) ? "\n\n" : "\n";
  }
  return text + "last line without a newline";
}

std::vector<ResumableLine> all_lines(ResumableInput& file, int64_t lines_before = 0, int64_t offset_before = 0) {
  ResumableLineReader reader(file, lines_before, offset_before);
  std::vector<ResumableLine> lines;
  for (ResumableLine line; reader.next(line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t at = 0;
  for (size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1) lines.push_back(text.substr(at, nl - at));
  if (at < text.size()) lines.push_back(text.substr(at));
  return lines;
}

struct Encoding {
  const char* name;
  Compression compression;
  size_t streams;  // gzip members / zstd frames (0: plain)
  std::string (*encode)(const std::string&);
};

const Encoding kEncodings[] = {
    {"plain", Compression::none, 0, [](const std::string& t) { return t; }},
    {"gzip_one_member", Compression::gzip, 1, [](const std::string& t) { return sift::testing::gzip_member(t); }},
    {"gzip_members", Compression::gzip, 7,
     [](const std::string& t) { return sift::testing::concatenated_streams(t, 7, sift::testing::gzip_member); }},
    {"zstd_one_frame", Compression::zstd, 1, [](const std::string& t) { return sift::testing::zstd_frame(t); }},
    {"zstd_frames", Compression::zstd, 9,
     [](const std::string& t) { return sift::testing::concatenated_streams(t, 9, sift::testing::zstd_frame); }},
};

class ResumableInputTest : public ::testing::TestWithParam<Encoding> {};

TEST_P(ResumableInputTest, ReadsTheLinesAndResumesAfterAnyOfThem) {
  const std::string text = sample_text();
  const auto path = write_test_file(std::string(GetParam().name) + ".jsonl", GetParam().encode(text));  // no telling suffix
  ResumableInput file(path);
  EXPECT_EQ(file.compression(), GetParam().compression);
  const std::vector<ResumableLine> lines = all_lines(file);
  const std::vector<std::string> expected = split_lines(text);
  ASSERT_EQ(lines.size(), expected.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_EQ(lines[i].text, expected[i]) << "line " << i + 1;
    ASSERT_EQ(lines[i].number, int64_t(i) + 1);
  }
  EXPECT_EQ(lines.back().next_offset, int64_t(text.size()));
  if (GetParam().compression == Compression::none) {
    EXPECT_EQ(lines.back().next.skip_bytes, 0);
  }

  // Resume after every 131st line (and the last): the rest comes out exactly.
  std::vector<size_t> resume_after;
  for (size_t i = 0; i < lines.size(); i += 131) resume_after.push_back(i);
  resume_after.push_back(lines.size() - 1);
  for (size_t i : resume_after) {
    ResumableInput resumed(path);
    resumed.seek(lines[i].next);
    const std::vector<ResumableLine> rest = all_lines(resumed, lines[i].number, lines[i].next_offset);
    ASSERT_EQ(rest.size(), lines.size() - i - 1) << "after line " << i + 1;
    for (size_t j = 0; j < rest.size(); ++j) {
      ASSERT_EQ(rest[j].text, lines[i + 1 + j].text);
      ASSERT_EQ(rest[j].number, lines[i + 1 + j].number);
      ASSERT_EQ(rest[j].next, lines[i + 1 + j].next);
      ASSERT_EQ(rest[j].next_offset, lines[i + 1 + j].next_offset);
    }
  }
}

TEST_P(ResumableInputTest, ResumePointsStartAtTheirOwnStream) {
  // A position restarts at the member/frame holding it (a plain file: at the line itself), so
  // with many members/frames a resume decodes only from the start of its own.
  const std::string text = sample_text();
  const auto path = write_test_file(std::string(GetParam().name) + "_streams", GetParam().encode(text));
  ResumableInput file(path);
  const std::vector<ResumableLine> lines = all_lines(file);
  std::set<int64_t> restart_points;
  for (const ResumableLine& line : lines) restart_points.insert(line.next.restart_offset);
  const size_t expected = GetParam().streams == 0 ? lines.size() : GetParam().streams;
  EXPECT_EQ(restart_points.size(), expected);
}

INSTANTIATE_TEST_SUITE_P(Encodings, ResumableInputTest, ::testing::ValuesIn(kEncodings),
                         [](const auto& info) { return std::string(info.param.name); });

std::string error_reading(const std::filesystem::path& path) {
  try {
    ResumableInput file(path);
    all_lines(file);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(ResumableInput, TruncatedAndCorruptStreamsAreErrorsNamingTheFile) {
  const std::string text = sample_text();
  const std::string gz = sift::testing::gzip_member(text), zst = sift::testing::zstd_frame(text);
  const auto gz_cut = write_test_file("cut.gz", gz.substr(0, gz.size() / 2));
  EXPECT_THAT(error_reading(gz_cut), HasSubstr("cut.gz: the gzip data is truncated"));
  const auto zst_cut = write_test_file("cut.zst", zst.substr(0, zst.size() - 9));
  EXPECT_THAT(error_reading(zst_cut), HasSubstr("cut.zst: the zstd data is truncated"));
  std::string garbled = gz;
  for (size_t i = 40; i < 200; ++i) garbled[i] = char(garbled[i] ^ 0x5a);
  EXPECT_THAT(error_reading(write_test_file("garbled.gz", garbled)), HasSubstr("invalid gzip data"));
  EXPECT_THAT(error_reading(write_test_file("trailing.zst", zst + "garbage!")), HasSubstr("invalid zstd data"));
}

TEST(ResumableInput, LinesOverTheLimitAreMarkedAndSkipped) {
  const auto path = write_test_file("long.jsonl", "short\n" + std::string(5000, 'x') + "\nafter\n");
  ResumableInput file(path);
  ResumableLineReader reader(file, 0, 0, /*max_line_bytes=*/1000);
  ResumableLine line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_FALSE(line.too_long);
  ASSERT_TRUE(reader.next(line));
  EXPECT_TRUE(line.too_long);
  EXPECT_TRUE(line.text.empty()) << "no caller reads a cut line's start: none is kept";
  EXPECT_EQ(line.bytes, 5000);
  EXPECT_EQ(line.next_offset, 6 + 5001);
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "after");
  EXPECT_EQ(line.number, 3);
  EXPECT_FALSE(reader.next(line));
}

TEST(ResumableInput, APositionBeyondTheInputIsAnError) {
  const std::string text = sample_text();
  const auto plain = write_test_file("short.jsonl", text);
  ResumableInput file(plain);
  EXPECT_THROW(file.seek({int64_t(text.size()) + 1, 0}), Error);
  const auto zst = write_test_file("short.zst", sift::testing::zstd_frame(text));
  ResumableInput compressed(zst);
  try {
    compressed.seek({0, int64_t(text.size()) + 10});
    FAIL() << "seek past the frame";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("not the job's input"));
  }
}

TEST(ResumableInput, EmptyAndDirectoryInputs) {
  ResumableInput empty(write_test_file("empty.jsonl", ""));
  EXPECT_TRUE(all_lines(empty).empty());
  EXPECT_THROW(ResumableInput(sift::testing::batch_test_dir()), Error);
  EXPECT_THROW(ResumableInput(sift::testing::batch_test_dir() / "missing.jsonl"), Error);
}

}  // namespace
}  // namespace sift::batch
