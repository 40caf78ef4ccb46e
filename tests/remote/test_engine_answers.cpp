// Engine answers read against the request (remote/engine_answers.h), whether an answer is the
// labeler's (remote/identity.h's check_answer_identity), and engine text in messages
// (remote/engine_text.h).
#include "remote/engine_answers.h"

#include <gtest/gtest.h>

#include <string>

#include "remote/engine_text.h"
#include "remote/identity.h"

namespace sift::remote {
namespace {

std::string why_of(const std::string& body, size_t items = 2, size_t labels = 2) {
  std::string why;
  EXPECT_FALSE(parse_score_answer(body, items, labels, why)) << body;
  return why;
}

TEST(EngineAnswers, ReadsTheScoresAndTheFingerprintTheAnswerNames) {
  std::string why;
  const auto answer = parse_score_answer(
      R"({"scores": [[0.25, 0.75], [1, 0]], "model": "labeler", "usage": {"prompt_tokens": 9, "extra": [{"a": null}]},
          "sift_fingerprint": "sha256:aa"})",
      2, 2, why);
  ASSERT_TRUE(answer) << why;
  EXPECT_EQ(answer->scores, (ItemScores{{0.25, 0.75}, {1.0, 0.0}}));
  EXPECT_EQ(answer->fingerprint, "sha256:aa");
  const auto sglang = parse_score_answer(R"({"scores": [[0.5, 0.5]], "object": "scoring"})", 1, 2, why);
  ASSERT_TRUE(sglang) << why;
  EXPECT_FALSE(sglang->fingerprint);
}

TEST(EngineAnswers, TheShapeIsTheRequestsCountedWhileParsing) {
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5]]})"), "answered 200 with 1 score rows for 2 items");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]})"),
            "answered 200 with more than 2 score rows for 2 items");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5], [0.5]]})"), "answered 200 with scores[1] that is not 2 numbers");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5, 0.5], [0.5, 0.5]]})"), "answered 200 with scores[0] that is not 2 numbers");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, "0.5"], [0.5, 0.5]]})"), "answered 200 with scores[0] that is not 2 numbers");
  EXPECT_EQ(why_of(R"({"scores": [3, [0.5, 0.5]]})"), "answered 200 with scores[0] that is not 2 numbers");
  EXPECT_EQ(why_of(R"({"scores": [[1.5, -0.5], [0.5, 0.5]]})"), "answered 200 with scores[0] holding 1.5, not a probability");
  EXPECT_EQ(why_of(R"({"scores": {"0": [0.5, 0.5]}})"), "answered 200 with \"scores\" that is not an array");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5], [0.5, 0.5]], "scores": []})"), "answered 200 with \"scores\" twice");
  EXPECT_EQ(why_of(R"({"model": "labeler"})"), "answered 200 with no \"scores\" array");
  EXPECT_EQ(why_of(R"([[0.5, 0.5], [0.5, 0.5]])"), "answered 200 with an array, not a JSON object");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5], [0.5, 0.5]], "sift_fingerprint": 7})"),
            "answered 200 with a \"sift_fingerprint\" that is not a string");
  EXPECT_EQ(why_of("<html>gateway\x1b[2J</html>"), "answered 200 with a body that is not JSON: <html>gateway\\x1b[2J</html>");
  EXPECT_EQ(why_of(R"({"scores": [[0.5, 0.5], [0.5, 0.5]]} trailing)").substr(0, 41), "answered 200 with a body that is not JSON");
}

TEST(EngineAnswers, NestingIsBoundedWhereverItIs) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(why_of(R"({"usage": )" + deep + R"(, "scores": [[0.5, 0.5], [0.5, 0.5]]})"),
            "answered 200 with JSON nested deeper than 64 levels");
  EXPECT_EQ(why_of(R"({"scores": )" + deep + "}"), "answered 200 with scores[0] that is not 2 numbers");
  EXPECT_EQ(why_of(deep), "answered 200 with an array, not a JSON object");
}

TEST(EngineAnswers, TheBoundGrowsWithItemsAndLabels) {
  EXPECT_EQ(score_answer_bytes(0, 2), uint64_t{64} << 10);
  EXPECT_EQ(score_answer_bytes(1000, 2), (uint64_t{64} << 10) + 1000 * 3 * 64);
  // sift serve's own answer (the shortest doubles, the longest of them 24 bytes) fits.
  std::string body = R"({"scores": [)";
  for (int i = 0; i < 1000; ++i) body += std::string(i ? "," : "") + "[2.2250738585072014e-308,2.2250738585072014e-308]";
  body += R"(], "model": "labeler", "object": "scoring", "usage": {"prompt_tokens": 123456, "completion_tokens": 0,
           "total_tokens": 123456}, "sift_fingerprint": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"})";
  EXPECT_LT(body.size(), score_answer_bytes(1000, 2));
}

TEST(EngineAnswers, AnErrorsMessageIsEscaped) {
  EXPECT_EQ(error_answer_message(R"({"message": "the engine fell over"})"), "the engine fell over");
  EXPECT_EQ(error_answer_message(R"({"error": {"message": "bad\u001b[2J"}})"), "bad\\x1b[2J");
  EXPECT_EQ(error_answer_message(R"({"detail": "Not Found"})"), "Not Found");
  EXPECT_EQ(error_answer_message("upstream\r\nreset"), "upstream\\r\\nreset");
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(error_answer_message(deep), std::string(200, '[') + "...");
}

TEST(EngineText, EscapesControlsAndBytesThatAreNotUtf8AndCuts) {
  EXPECT_EQ(engine_text("plain text, café, 名前"), "plain text, café, 名前");
  EXPECT_EQ(engine_text("a\x1b]0;title\x07z\x7f"), "a\\x1b]0;title\\x07z\\x7f");
  EXPECT_EQ(engine_text("line\nnext\ttab"), "line\\nnext\\ttab");
  EXPECT_EQ(engine_text("\xc2\x9b" "31m"), "\\u009b31m");              // C1 CSI
  EXPECT_EQ(engine_text("\xe2\x80\xae" "txt"), "\\u202etxt");          // right-to-left override
  EXPECT_EQ(engine_text("\x9b\xff\xc3"), "\\x9b\\xff\\xc3");           // not UTF-8
  EXPECT_EQ(engine_text("\xc0\x80\xed\xa0\x80"), "\\xc0\\x80\\xed\\xa0\\x80");  // overlong, a surrogate
  EXPECT_EQ(engine_text(std::string(300, 'x')), std::string(200, 'x') + "...");
  EXPECT_EQ(engine_text("名前名前", 4), "名前...");  // cut between characters, never inside one
}

const LabelerIdentity kLocal{.model_name = "labeler", .fingerprint = "sha256:aa", .where = "models/labeler"};

TEST(AnswerIdentity, AnAnswerMustNameTheFingerprintItsEngineWasCheckedFor) {
  EXPECT_FALSE(check_answer_identity("sha256:aa", true, kLocal, "http://a"));
  EXPECT_FALSE(check_answer_identity(std::nullopt, false, kLocal, "http://a"));  // SGLang names none
  EXPECT_FALSE(check_answer_identity("sha256:aa", false, kLocal, "http://a"));   // a proxy of sift serve
  for (const bool exact : {true, false}) {
    const auto refusal = check_answer_identity("sha256:bb\x1b[2J", exact, kLocal, "http://a:1");
    ASSERT_TRUE(refusal);
    for (const char* named : {"http://a:1", "sha256:bb\\x1b[2J", "sha256:aa", "models/labeler"})
      EXPECT_NE(refusal->find(named), std::string::npos) << named << " in " << *refusal;
  }
  const auto refusal = check_answer_identity(std::nullopt, true, kLocal, "http://a:1");
  ASSERT_TRUE(refusal);
  EXPECT_NE(refusal->find("naming no labeler fingerprint"), std::string::npos) << *refusal;
  EXPECT_NE(refusal->find("sha256:aa"), std::string::npos) << *refusal;
}

}  // namespace
}  // namespace sift::remote
