// The inputs of `sift label`: catalog and profile rows (each malformed row reported with its
// line, the rest kept), input hashes, bounded line reading.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "core/error.h"
#include "label/catalog_file.h"
#include "io/content_hash.h"
#include "label/jsonl_file.h"
#include "label/profile_row.h"

using namespace sift::label;

namespace {

class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    path_ = std::filesystem::temp_directory_path() /
            ("sift_label_inputs_" + std::to_string(::getpid()) + "_" + std::to_string(++count_) + ".jsonl");
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  const std::filesystem::path& path() const { return path_; }

 private:
  static inline int count_ = 0;
  std::filesystem::path path_;
};

ProfileRow profile(const std::string& line) { return parse_profile_row(parse_object_line(line, false)); }

std::string error_of(const std::string& line) {
  try {
    profile(line);
  } catch (const sift::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(LabelCatalog, MalformedRowsAreReportedWithTheirLineAndTheRestKept) {
  TempFile file(
      "{\"id\": \"q1\", \"name\": \"Apache Spark\", \"aliases\": [\"PySpark\"], \"category\": \"ignored\"}\n"
      "not json\n"
      "{\"id\": \"q2\"}\n"
      "{\"id\": \"q1\", \"name\": \"Spark again\"}\n"
      "{\"id\": \"q3\", \"name\": \"Kubernetes\", \"aliases\": \"k8s\"}\n"
      "\n"
      "[1, 2]\n"
      "{\"id\": 7, \"name\": \"Kafka\", \"titles\": [\"Streaming Engineer\"]}\r\n"
      "{\"id\": \"q4\", \"name\": \"\"}\n"
      "{\"id\": \"q5\", \"name\": \"Welding\", \"aliases\": [\"MIG\", 3]}\n"
      "{\"id\": \"q6\", \"name\": \"Weld\\u0000ing\"}");
  std::vector<std::string> reports;
  LabelCatalog catalog = LabelCatalog::read(file.path(), [&](const std::string& m) { reports.push_back(m); });
  ASSERT_EQ(catalog.size(), 2);
  EXPECT_EQ(catalog[0].id, "q1");
  EXPECT_EQ(catalog[0].surface_forms, (std::vector<std::string>{"Apache Spark", "PySpark"}));
  EXPECT_EQ(catalog[1].id, "7");
  EXPECT_EQ(catalog.malformed_rows(), 9);
  const std::string where = file.path().string() + ":";
  const std::vector<std::pair<int, std::string>> expected = {
      {2, "invalid JSON"},        {3, "missing field \"name\""}, {4, "id \"q1\" repeats line 1"},
      {5, "\"aliases\" must be a list"}, {6, "empty line"},      {7, "expected a JSON object"},
      {9, "\"name\" is empty"},   {10, "aliases[1] must be a string"}, {11, "\"name\" holds a NUL character"}};
  ASSERT_EQ(reports.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(reports[i].rfind(where + std::to_string(expected[i].first) + ": ", 0), 0u) << reports[i];
    EXPECT_NE(reports[i].find(expected[i].second), std::string::npos) << reports[i];
  }
}

TEST(LabelCatalog, RetrievesByEverySurfaceFormAndNeverWhatSharesNoTerm) {
  TempFile file(
      "{\"id\": \"q1\", \"name\": \"Apache Spark\", \"aliases\": [\"PySpark\"]}\n"
      "{\"id\": \"q2\", \"name\": \"Apache Kafka\"}\n"
      "{\"id\": \"q3\", \"name\": \"Welding\", \"titles\": [\"Pipe Fitter\"]}\n");
  LabelCatalog catalog = LabelCatalog::read(file.path(), [](const std::string& m) { FAIL() << m; });
  EXPECT_EQ(catalog.retrieve("Wrote PySpark jobs", 10), (std::vector<int>{0}));
  EXPECT_EQ(catalog.retrieve("apache", 10).size(), 2u);
  EXPECT_EQ(catalog.retrieve("apache", 1).size(), 1u);
  EXPECT_EQ(catalog.retrieve("a pipe fitter", 10), (std::vector<int>{2}));
  EXPECT_TRUE(catalog.retrieve("", 10).empty());
  EXPECT_EQ(catalog.find("q2"), 1);
  EXPECT_EQ(catalog.find("q9"), -1);
}

TEST(LabelCatalog, ACatalogWithNoUsableRowIsAnError) {
  TempFile file("garbage\n{}\n");
  EXPECT_THROW(LabelCatalog::read(file.path(), [](const std::string&) {}), sift::Error);
}

TEST(ProfileRow, FieldsAndTheirErrors) {
  ProfileRow row = profile(R"({"id": "m1", "text": "ten years of python", "extra": [1]})");
  EXPECT_EQ(row.member, "m1");
  EXPECT_EQ(row.text, "ten years of python");
  EXPECT_FALSE(row.candidates.has_value());
  EXPECT_EQ(profile(R"({"id": 42, "text": ""})").member, "42");
  EXPECT_EQ(*profile(R"({"id": "m", "text": "x", "candidates": ["q2", "q1"]})").candidates,
            (std::vector<std::string>{"q2", "q1"}));
  EXPECT_TRUE(profile(R"({"id": "m", "text": "x", "candidates": []})").candidates->empty());

  EXPECT_NE(error_of(R"({"text": "x"})").find("missing field \"id\""), std::string::npos);
  EXPECT_NE(error_of(R"({"id": "", "text": "x"})").find("\"id\" is empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"id": 1.5, "text": "x"})").find("string or an integer"), std::string::npos);
  EXPECT_NE(error_of(R"({"id": "a\u0000b", "text": "x"})").find("control character"), std::string::npos);
  EXPECT_NE(error_of("{\"id\": \"" + std::string(300, 'm') + "\", \"text\": \"x\"}").find("at most 256"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"id": "m"})").find("missing field \"text\""), std::string::npos);
  EXPECT_NE(error_of(R"({"id": "m", "text": 5})").find("\"text\" must be a string"), std::string::npos);
  EXPECT_NE(error_of(R"({"id": "m", "text": "a\u0000b"})").find("\"text\" holds a NUL character"), std::string::npos)
      << "no store can keep it: the row's error, on SQLite as on PostgreSQL";
  EXPECT_NE(error_of(R"({"id": "m", "text": "x", "candidates": "q1"})").find("list of strings"), std::string::npos);
  EXPECT_NE(error_of(R"({"id": "m", "text": "x", "candidates": ["q1", "q2", "q1"]})")
                .find("candidates[2] \"q1\" repeats candidates[0]"),
            std::string::npos);
}

TEST(ProfileRow, TheInputHashFollowsTextAndGivenCandidatesOnly) {
  const std::string base = profile(R"({"id": "m1", "text": "python"})").member;
  auto hash = [](const std::string& line) { return profile_input_hash(profile(line)); };
  const std::string h = hash(R"({"id": "m1", "text": "python"})");
  EXPECT_EQ(h.size(), 64u);
  EXPECT_EQ(h, hash(R"({"id": "m2", "text": "python", "other": 1})")) << "id and other fields are not input";
  EXPECT_NE(h, hash(R"({"id": "m1", "text": "python "})"));
  EXPECT_NE(h, hash(R"({"id": "m1", "text": "python", "candidates": []})")) << "given nothing != retrieve";
  EXPECT_NE(hash(R"({"id": "m1", "text": "x", "candidates": ["a", "b"]})"),
            hash(R"({"id": "m1", "text": "x", "candidates": ["b", "a"]})"));
  // The digest itself: SHA-256 of the documented key, checked against a known vector.
  EXPECT_EQ(sift::sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(h, sift::sha256_hex(R"(["python",null])"));
}

TEST(JsonlFile, CountsLinesReadsCrlfAndCutsRunawayLines) {
  const std::string huge(sift::kDefaultMaxLineBytes + 10, 'x');
  TempFile file("{\"a\": 1}\r\n" + huge + "\n\nlast");
  EXPECT_EQ(sift::count_lines(file.path()), 4);
  JsonlFile reader(file.path());
  std::string text;
  ASSERT_TRUE(reader.next(text));
  EXPECT_EQ(text, "{\"a\": 1}");
  EXPECT_EQ(reader.where(), file.path().string() + ":1");
  ASSERT_TRUE(reader.next(text));
  EXPECT_TRUE(reader.too_long());
  EXPECT_TRUE(text.empty()) << "a runaway line is not kept";
  try {
    parse_object_line(text, reader.too_long());
    ADD_FAILURE() << "a runaway line parsed";
  } catch (const sift::Error& e) {
    EXPECT_STREQ(e.what(), "line longer than 64 MiB");
  }
  ASSERT_TRUE(reader.next(text));
  EXPECT_FALSE(reader.too_long());
  EXPECT_EQ(text, "");
  ASSERT_TRUE(reader.next(text));
  EXPECT_EQ(text, "last");
  EXPECT_EQ(reader.line_number(), 4);
  EXPECT_FALSE(reader.next(text));
  EXPECT_EQ(reader.line_number(), 4) << "the end keeps the last line's number";
  TempFile empty("");
  EXPECT_EQ(sift::count_lines(empty.path()), 0);
}

TEST(JsonlFile, ABareCrEndsALineAsInEveryOtherCommand) {
  // Old Mac endings: three lines, not one; a "\r\n" is one ending, "\n\r" two.
  TempFile file("{\"a\": 1}\r{\"a\": 2}\r\n{\"a\": 3}\n\r{\"a\": 4}\r");
  EXPECT_EQ(sift::count_lines(file.path()), 5);
  JsonlFile reader(file.path());
  std::vector<std::string> lines;
  for (std::string text; reader.next(text);) lines.push_back(text);
  EXPECT_EQ(lines, (std::vector<std::string>{"{\"a\": 1}", "{\"a\": 2}", "{\"a\": 3}", "", "{\"a\": 4}"}));
  EXPECT_EQ(reader.where(), file.path().string() + ":5");
}

TEST(JsonlFile, DeeplyNestedOrInvalidJsonIsAnErrorNotACrash) {
  EXPECT_THROW(parse_object_line(std::string(100000, '['), false), sift::Error);
  EXPECT_THROW(parse_object_line(std::string(100000, '[') + std::string(100000, ']'), false), sift::Error);
  EXPECT_THROW(parse_object_line("{\"id\": \"\xff\xfe\"}", false), sift::Error);  // not UTF-8
}

