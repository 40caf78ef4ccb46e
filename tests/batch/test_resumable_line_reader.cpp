// sift batch's line reader over plain, gzip and zstd input with "\r\n", bare "\r" and mixed
// line endings: its lines are those of the line rule (tests/common/reference_lines.h), each
// line's resume position lies after its whole ending, and a reader started at any of them
// reads exactly the lines after it, numbered and placed as in one read from the start. The
// "\r" and "\n" of a pair fall on both sides of chunk boundaries (chunks of a few bytes) and
// of gzip member and zstd frame boundaries.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "../common/reference_lines.h"
#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "compressed_files.h"

namespace sift::batch {
namespace {

using sift::testing::reference_lines;
using sift::testing::write_test_file;

constexpr int64_t kLimit = 24;  // some rows are longer: too-long lines are resumed over too

// 40 rows of 8 to 33 bytes with the given endings ("mixed": any of "\n", "\r\n", "\r"), the
// last one without an ending unless `final_ending`.
std::string rows_with_endings(const std::string& endings, bool final_ending, unsigned seed) {
  std::mt19937 random(seed);
  const std::vector<std::string> any = {"\n", "\r\n", "\r"};
  std::string text;
  const auto ending = [&] { return endings == "mixed" ? any[random() % 3] : endings; };
  for (int i = 0; i < 40; ++i) {
    text += "{\"id\":" + std::to_string(i) + std::string(random() % 24, char('a' + i % 26)) + "}";
    if (i == 39 && !final_ending) break;
    text += ending();
    if (i % 9 == 4) text += ending();  // an empty line
  }
  return text;
}

struct Encoded {
  std::string name;
  std::string bytes;
};

// The text split into streams at `cuts`, each compressed alone.
template <typename Compress>
std::string streams_cut_at(const std::string& text, const std::vector<size_t>& cuts, Compress compress) {
  std::string out;
  size_t at = 0;
  for (size_t cut : cuts) {
    out += compress(text.substr(at, cut - at));
    at = cut;
  }
  return out + compress(text.substr(at));
}

// Plain, one gzip member, one zstd frame, and gzip members / zstd frames that start between
// the "\r" and "\n" of pairs (and after a bare "\r").
std::vector<Encoded> encodings(const std::string& text) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < text.size(); ++i)
    if (text[i - 1] == '\r' && cuts.size() < 6 && (cuts.empty() || i > cuts.back() + 30)) cuts.push_back(i);
  return {{"plain", text},
          {"gzip", sift::testing::gzip_member(text)},
          {"zstd", sift::testing::zstd_frame(text)},
          {"gzip_cut_after_cr", streams_cut_at(text, cuts, sift::testing::gzip_member)},
          {"zstd_cut_after_cr", streams_cut_at(text, cuts, sift::testing::zstd_frame)}};
}

std::vector<ResumableLine> read_all(ResumableInput& file, size_t chunk, int64_t lines_before = 0, int64_t offset_before = 0) {
  ResumableLineReader reader(file, lines_before, offset_before, kLimit, chunk);
  std::vector<ResumableLine> lines;
  for (ResumableLine line; reader.next(line);) lines.push_back(line);
  return lines;
}

struct Case {
  const char* name;
  const char* endings;
  bool final_ending;
};

void PrintTo(const Case& c, std::ostream* out) { *out << c.name; }

const Case kCases[] = {
    {"crlf", "\r\n", true},
    {"bare_cr", "\r", true},
    {"mixed", "mixed", false},
    {"mixed_final_cr", "mixed", true},
};

class ResumableLineReaderEndings : public ::testing::TestWithParam<Case> {};

// Every line's position is also the same however the input is read in chunks (a resume checks
// the position its checkpoint records against a reading from the start: run_batch.cpp).
TEST_P(ResumableLineReaderEndings, EveryLinesPositionResumesAtTheNextLine) {
  const Case& c = GetParam();
  std::string text = rows_with_endings(c.endings, c.final_ending, 11);
  if (std::string(c.name) == "mixed_final_cr") text += "\r";  // an empty line, then the end
  const auto expected = reference_lines(text, kLimit);
  ASSERT_GT(expected.size(), 40u);
  for (const Encoded& encoded : encodings(text)) {
    const auto path = write_test_file(std::string(c.name) + "_" + encoded.name, encoded.bytes);
    std::vector<InputPosition> positions;  // as the first chunk size gives them
    for (size_t chunk : {size_t(1), size_t(2), size_t(3), size_t(64), kDefaultChunkBytes}) {
      SCOPED_TRACE(encoded.name + ", chunks of " + std::to_string(chunk));
      ResumableInput file(path);
      const std::vector<ResumableLine> lines = read_all(file, chunk);
      ASSERT_EQ(lines.size(), expected.size());
      for (size_t i = 0; i < lines.size(); ++i) {
        if (positions.size() < lines.size()) positions.push_back(lines[i].next);
        ASSERT_EQ(lines[i].next, positions[i]) << "line " << i + 1 << ": another position in other chunks";
      }
      for (size_t i = 0; i < lines.size(); ++i) {
        ASSERT_EQ(lines[i].number, int64_t(i) + 1);
        ASSERT_EQ(lines[i].text, expected[i].text) << "line " << i + 1;
        ASSERT_EQ(lines[i].bytes, expected[i].bytes) << "line " << i + 1;
        ASSERT_EQ(lines[i].too_long, expected[i].too_long) << "line " << i + 1;
        ASSERT_EQ(lines[i].next_offset, expected[i].end) << "line " << i + 1 << ": after its whole ending";
        if (encoded.name == "plain") {
          ASSERT_EQ(lines[i].next, (InputPosition{expected[i].end, 0}));
        }
      }
      for (size_t i = 0; i < lines.size(); ++i) {
        ResumableInput resumed(path);
        resumed.seek(lines[i].next);
        const std::vector<ResumableLine> rest = read_all(resumed, chunk, lines[i].number, lines[i].next_offset);
        ASSERT_EQ(rest.size(), lines.size() - i - 1) << "resumed after line " << i + 1;
        for (size_t j = 0; j < rest.size(); ++j) {
          const ResumableLine& want = lines[i + 1 + j];
          ASSERT_EQ(rest[j].number, want.number) << "resumed after line " << i + 1;
          ASSERT_EQ(rest[j].text, want.text) << "resumed after line " << i + 1 << ", line " << want.number;
          ASSERT_EQ(rest[j].too_long, want.too_long);
          ASSERT_EQ(rest[j].next_offset, want.next_offset);
          ASSERT_EQ(rest[j].next, want.next) << "resumed after line " << i + 1 << ", line " << want.number;
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Endings, ResumableLineReaderEndings, ::testing::ValuesIn(kCases),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(ResumableLineReader, ACrAtTheEndOfTheFileEndsTheLastLine) {
  for (const std::string text : {"a\rb\r", "a\r\nb\r\n", "a\r\r"}) {
    const auto path = write_test_file("final_cr.jsonl", text);
    ResumableInput file(path);
    const std::vector<ResumableLine> lines = read_all(file, 1);
    ASSERT_EQ(lines.size(), reference_lines(text, kLimit).size()) << text;
    EXPECT_EQ(lines.back().next, (InputPosition{int64_t(text.size()), 0}));
    ResumableInput resumed(path);
    resumed.seek(lines.back().next);
    EXPECT_TRUE(read_all(resumed, 1, lines.back().number, lines.back().next_offset).empty());
  }
}

}  // namespace
}  // namespace sift::batch
