// Every reader of JSON lines splits a file the same way: for random inputs made of short text
// pieces and random line endings, and small limits that make some lines too long, the stream
// reader of sift score & co. (io/line_reader.h, fed in random small pieces as a pipe would),
// sift batch's reader (batch/resumable_line_reader.h, plain and gzip, random chunk sizes),
// sift label's JsonlFile and count_lines all give the lines of the whole-string reference
// (tests/common/reference_lines.h).
#include <gtest/gtest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../common/reference_lines.h"
#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "compressed_files.h"
#include "io/line_reader.h"
#include "label/jsonl_file.h"

namespace sift {
namespace {

using sift::testing::ReferenceLine;
using sift::testing::reference_lines;
using sift::testing::write_test_file;

// Line texts, with the too-long mark and byte count where a reader gives them.
struct Line {
  std::string text;
  bool too_long = false;
  int64_t bytes = -1;  // -1: the reader does not say
  bool operator==(const Line&) const = default;
};

std::string random_input(std::mt19937& random) {
  static const std::vector<std::string> pieces = {"{\"a\": 1}", "x", "abc", " ", "[]", "\"\\r\\n\"", "{}"};
  static const std::vector<std::string> endings = {"\n", "\r\n", "\r", "\n\r", "\r\r", "\r\n\r\n", "", ""};
  std::string text;
  const size_t n = random() % 24;
  for (size_t i = 0; i < n; ++i) text += pieces[random() % pieces.size()] + endings[random() % endings.size()];
  return text;
}

std::vector<Line> expected(const std::string& text, int64_t limit, bool with_bytes) {
  std::vector<Line> lines;
  for (const ReferenceLine& line : reference_lines(text, limit))
    lines.push_back({line.text, line.too_long, with_bytes ? line.bytes : -1});
  return lines;
}

// A pipe: the text in random small pieces, each what the stream has buffered at that time.
class Trickle : public std::streambuf {
 public:
  Trickle(std::string text, unsigned seed) : text_(std::move(text)), random_(seed) {}

 protected:
  int_type underflow() override {
    if (at_ == text_.size()) return traits_type::eof();
    const size_t n = std::min<size_t>(1 + random_() % 5, text_.size() - at_);
    setg(text_.data() + at_, text_.data() + at_, text_.data() + at_ + n);
    at_ += n;
    return traits_type::to_int_type(text_[at_ - n]);
  }

 private:
  std::string text_;
  std::mt19937 random_;
  size_t at_ = 0;
};

std::vector<Line> stream_lines(const std::string& text, int64_t limit, unsigned seed) {
  Trickle pipe(text, seed);
  std::istream in(&pipe);
  LineReader reader(in, limit);
  std::vector<Line> lines;
  for (InputLine line; reader.next(line);) {
    EXPECT_EQ(line.number, int64_t(lines.size()) + 1);
    lines.push_back({line.text, line.too_long, line.bytes});
  }
  return lines;
}

std::vector<Line> batch_lines(const std::filesystem::path& path, int64_t limit, size_t chunk) {
  batch::ResumableInput file(path);
  batch::ResumableLineReader reader(file, 0, 0, limit, chunk);
  std::vector<Line> lines;
  for (batch::ResumableLine line; reader.next(line);) {
    EXPECT_EQ(line.number, int64_t(lines.size()) + 1);
    lines.push_back({line.text, line.too_long, line.bytes});
  }
  return lines;
}

std::vector<Line> jsonl_file_lines(const std::filesystem::path& path, int64_t limit) {
  label::JsonlFile file(path, limit);
  std::vector<Line> lines;
  for (std::string text; file.next(text);) {
    EXPECT_EQ(file.line_number(), int64_t(lines.size()) + 1);
    lines.push_back({text, file.too_long()});
  }
  return lines;
}

TEST(LineRule, AllReadersGiveTheSameLines) {
  std::mt19937 random(20260521);
  for (int round = 0; round < 400; ++round) {
    const std::string text = random_input(random);
    const auto plain = write_test_file("line_rule.jsonl", text);
    const auto gzip = write_test_file("line_rule.jsonl.gz", sift::testing::concatenated_streams(text, 3, sift::testing::gzip_member));
    for (int64_t limit : {int64_t(1), int64_t(3), int64_t(8), kDefaultMaxLineBytes}) {
      SCOPED_TRACE("input " + ::testing::PrintToString(text) + ", limit " + std::to_string(limit));
      const std::vector<Line> want = expected(text, limit, true);
      ASSERT_EQ(stream_lines(text, limit, unsigned(round)), want) << "the stream reader";
      const size_t chunk = 1 + random() % 8;
      ASSERT_EQ(batch_lines(plain, limit, chunk), want) << "sift batch's reader, plain, chunks of " << chunk;
      ASSERT_EQ(batch_lines(gzip, limit, chunk), want) << "sift batch's reader, gzip, chunks of " << chunk;
      ASSERT_EQ(jsonl_file_lines(plain, limit), expected(text, limit, false)) << "sift label's JsonlFile";
    }
    ASSERT_EQ(count_lines(plain), int64_t(reference_lines(text, 1).size())) << ::testing::PrintToString(text);
  }
}

}  // namespace
}  // namespace sift
