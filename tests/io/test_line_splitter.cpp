// The line rule (io/line_splitter.h) and the stream reader over it (io/line_reader.h): for
// every short string of text bytes, "\r" and "\n", however it is cut into pieces, the lines
// are those of the whole-string reference (tests/common/reference_lines.h); the stream reader
// never waits for a byte past a line's end; count_lines counts the lines the reader reads.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../common/reference_lines.h"
#include "core/error.h"
#include "io/line_reader.h"
#include "io/line_splitter.h"

namespace sift {
namespace {

using sift::testing::ReferenceLine;
using sift::testing::reference_lines;

// Every string of up to max_length bytes drawn from `alphabet`.
std::vector<std::string> all_strings(const std::string& alphabet, size_t max_length) {
  std::vector<std::string> strings{""};
  for (size_t begin = 0, length = 1; length <= max_length; ++length) {
    const size_t end = strings.size();
    for (size_t i = begin; i < end; ++i)
      for (char c : alphabet) strings.push_back(strings[i] + c);
    begin = end;
  }
  return strings;
}

// The reference lines without their end offsets (a splitter knows lines, not offsets).
std::vector<ReferenceLine> expected_lines(const std::string& text, int64_t max_line_bytes) {
  std::vector<ReferenceLine> lines = reference_lines(text, max_line_bytes);
  for (ReferenceLine& line : lines) line.end = 0;
  return lines;
}

ReferenceLine as_reference(const InputLine& line) { return {line.text, line.bytes, line.too_long, 0}; }

// The text handed to a splitter in pieces cut at `cuts` (ascending offsets).
std::vector<ReferenceLine> split_in_pieces(const std::string& text, const std::vector<size_t>& cuts,
                                           int64_t max_line_bytes, int64_t lines_before = 0) {
  LineSplitter splitter(max_line_bytes, lines_before);
  std::vector<ReferenceLine> lines;
  InputLine line;
  size_t at = 0;
  for (size_t i = 0; i <= cuts.size(); ++i) {
    const size_t cut = i < cuts.size() ? cuts[i] : text.size();
    std::string_view piece(text.data() + at, cut - at);
    while (!piece.empty())
      if (splitter.take(piece, line)) {
        EXPECT_EQ(line.number, lines_before + int64_t(lines.size()) + 1);
        lines.push_back(as_reference(line));
      }
    at = cut;
  }
  if (splitter.finish(line)) {
    EXPECT_EQ(line.number, lines_before + int64_t(lines.size()) + 1);
    lines.push_back(as_reference(line));
  }
  EXPECT_FALSE(splitter.finish(line)) << "the end is the end";
  EXPECT_EQ(splitter.lines(), lines_before + int64_t(lines.size()));
  return lines;
}

TEST(LineSplitter, TheEndingsTheRuleNames) {
  const auto texts = [](const std::string& text) {
    std::vector<std::string> out;
    for (const ReferenceLine& line : split_in_pieces(text, {}, 100)) out.push_back(line.text);
    return out;
  };
  using V = std::vector<std::string>;
  EXPECT_EQ(texts("a\nb\r\nc\rd"), (V{"a", "b", "c", "d"}));
  EXPECT_EQ(texts("a\n"), (V{"a"})) << "no empty line after a final ending";
  EXPECT_EQ(texts("a\r"), (V{"a"}));
  EXPECT_EQ(texts("a\r\n"), (V{"a"}));
  EXPECT_EQ(texts("a\n\r"), (V{"a", ""})) << "\"\\n\\r\" is two endings";
  EXPECT_EQ(texts("\r\r\n\n"), (V{"", "", ""}));
  EXPECT_EQ(texts(""), (V{}));
  EXPECT_EQ(texts("last"), (V{"last"}));
}

TEST(LineSplitter, EveryShortStringCutAnywhereGivesTheReferenceLines) {
  for (const std::string& text : all_strings("ab\r\n", 6)) {
    for (int64_t limit : {int64_t(0), int64_t(1), int64_t(2), kDefaultMaxLineBytes}) {
      const std::vector<ReferenceLine> expected = expected_lines(text, limit);
      ASSERT_EQ(split_in_pieces(text, {}, limit), expected) << "whole: " << ::testing::PrintToString(text);
      std::vector<size_t> every_byte;
      for (size_t i = 1; i < text.size(); ++i) every_byte.push_back(i);
      ASSERT_EQ(split_in_pieces(text, every_byte, limit, 7), expected) << "bytes: " << ::testing::PrintToString(text);
      for (size_t cut = 1; cut < text.size(); ++cut)
        ASSERT_EQ(split_in_pieces(text, {cut}, limit), expected) << "cut at " << cut << ": " << ::testing::PrintToString(text);
    }
  }
}

TEST(LineSplitter, ALongLineKeepsNoTextAndCountsItsBytes) {
  LineSplitter splitter(4);
  InputLine line;
  std::string_view input = "abcd\nabcde";
  ASSERT_TRUE(splitter.take(input, line));
  EXPECT_EQ(line.text, "abcd");
  EXPECT_FALSE(line.too_long);
  ASSERT_FALSE(splitter.take(input, line));  // "abcde": one byte over
  EXPECT_TRUE(line.too_long);
  EXPECT_TRUE(line.text.empty());
  const std::string huge(100000, 'x');
  for (int i = 0; i < 50; ++i) {  // 5 MB in pieces: once past the limit, nothing is kept
    std::string_view piece = huge;
    ASSERT_FALSE(splitter.take(piece, line));
    ASSERT_TRUE(line.too_long);
    ASSERT_TRUE(line.text.empty());
  }
  input = "\r";
  ASSERT_TRUE(splitter.take(input, line));
  EXPECT_TRUE(line.too_long);
  EXPECT_EQ(line.bytes, 5000000 + 5);
  EXPECT_EQ(line.number, 2);
  EXPECT_THROW(LineSplitter(-1), Error);
}

TEST(LineSplitter, AReaderSettlesACrAtTheEndOfAPieceWithTheNextPiece) {
  LineSplitter splitter(100);
  InputLine line;
  std::string_view input = "a\r";
  ASSERT_TRUE(splitter.take(input, line));
  EXPECT_TRUE(splitter.after_cr()) << "the \"\\r\" was the last byte: a \"\\n\" may follow";
  std::string_view next = "\nb\n";
  splitter.take_lf_after_cr(next);
  EXPECT_EQ(next, "b\n") << "the \"\\n\" of the \"\\r\\n\" is taken";
  EXPECT_FALSE(splitter.after_cr());
  ASSERT_TRUE(splitter.take(next, line));
  EXPECT_EQ(line.text, "b");

  input = "c\r";
  ASSERT_TRUE(splitter.take(input, line));
  std::string_view other = "d\n";
  splitter.take_lf_after_cr(other);
  EXPECT_EQ(other, "d\n") << "not a \"\\n\": nothing is taken";
  input = "e\r\nf";
  ASSERT_TRUE(splitter.take(input, line));
  EXPECT_FALSE(splitter.after_cr()) << "the \"\\n\" was in the same piece";
  EXPECT_EQ(input, "f");
}

// A terminal: the bytes typed so far, nothing buffered ahead; asking for a byte not yet typed
// is what would block, and fails the test.
class TypedInput : public std::streambuf {
 public:
  void type(const std::string& text) { typed_ += text; }

 protected:
  int_type underflow() override {
    if (at_ == typed_.size()) {
      ADD_FAILURE() << "the reader waited for a byte not typed yet (after " << at_ << " bytes)";
      return traits_type::eof();
    }
    current_ = typed_[at_];
    setg(&current_, &current_, &current_ + 1);
    ++at_;
    return traits_type::to_int_type(current_);
  }
  std::streamsize showmanyc() override { return 0; }

 private:
  std::string typed_;
  size_t at_ = 0;
  char current_ = 0;
};

TEST(LineReader, NeverWaitsForAByteAfterALinesEnd) {
  TypedInput terminal;
  std::istream in(&terminal);
  LineReader reader(in);
  InputLine line;
  terminal.type("{\"a\": 1}\r");
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "{\"a\": 1}");
  terminal.type("\n{\"b\": 2}\n");
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "{\"b\": 2}") << "the \"\\n\" of \"\\r\\n\" is no empty line";
  EXPECT_EQ(line.number, 2);
  terminal.type("\r");
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "");
  EXPECT_EQ(line.number, 3);
}

TEST(LineReader, TooLongLinesAndTheLimitFlag) {
  std::istringstream in("short\r\n" + std::string(5000, 'x') + "\rafter");
  LineReader reader(in, 1000);
  InputLine line;
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "short");
  ASSERT_TRUE(reader.next(line));
  EXPECT_TRUE(line.too_long);
  EXPECT_TRUE(line.text.empty());
  EXPECT_EQ(too_long_line_message(line, 1000), "line of 5000 bytes is longer than --max-line-bytes 1000 (not parsed)");
  ASSERT_TRUE(reader.next(line));
  EXPECT_EQ(line.text, "after");
  EXPECT_EQ(line.number, 3);
  EXPECT_FALSE(reader.next(line));
  try {
    LineReader zero(in, 0);
    FAIL() << "a zero limit";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "--max-line-bytes must be at least 1, got 0");
  }
}

TEST(CountLines, AgreesWithTheReaderOnEveryMixOfEndings) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("sift_count_lines_" + std::to_string(::getpid()) + ".jsonl");
  for (const std::string& text : all_strings("a\r\n", 6)) {
    std::ofstream(path, std::ios::binary) << text;
    std::ifstream in(path, std::ios::binary);
    LineReader reader(in);
    int64_t read = 0;
    for (InputLine line; reader.next(line);) ++read;
    const auto expected = int64_t(reference_lines(text, kDefaultMaxLineBytes).size());
    ASSERT_EQ(read, expected) << ::testing::PrintToString(text);
    ASSERT_EQ(count_lines(path), expected) << ::testing::PrintToString(text);
  }
  std::filesystem::remove(path);
  EXPECT_EQ(count_lines(std::filesystem::temp_directory_path()), std::nullopt) << "a folder";
  EXPECT_EQ(count_lines("/dev/null"), std::nullopt) << "not a regular file";
}

}  // namespace
}  // namespace sift
