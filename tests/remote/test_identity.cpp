// An engine's /v1/models against the local labeler (remote/identity.h), and engine URLs
// (remote/endpoint.h).
#include "remote/identity.h"

#include <gtest/gtest.h>

#include "core/error.h"
#include "remote/endpoint.h"

namespace sift::remote {
namespace {

const LabelerIdentity kLocal{.model_name = "labeler", .fingerprint = "sha256:aa", .where = "models/labeler",
                             .vocab_size = 512, .yes = 257, .no = 258};

std::string models(const std::string& fields) {
  return R"({"object": "list", "data": [{"id": "labeler", "object": "model")" + fields + "}]}";
}

TEST(Identity, TheSameFingerprintIsExact) {
  const IdentityCheck check = check_identity(models(R"(, "sift_fingerprint": "sha256:aa", "vocab_size": 512)"), kLocal, "http://a");
  EXPECT_FALSE(check.refusal);
  EXPECT_TRUE(check.exact);
}

TEST(Identity, AnotherFingerprintIsRefusedNamingBoth) {
  const IdentityCheck check = check_identity(models(R"(, "sift_fingerprint": "sha256:bb")"), kLocal, "http://a:1");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("http://a:1"), std::string::npos) << *check.refusal;
  EXPECT_NE(check.refusal->find("sha256:bb"), std::string::npos) << *check.refusal;
  EXPECT_NE(check.refusal->find("sha256:aa"), std::string::npos) << *check.refusal;
  EXPECT_NE(check.refusal->find("models/labeler"), std::string::npos) << *check.refusal;
}

TEST(Identity, WeightsHeldAnotherWayAreRefusedButAutoIsF32) {
  IdentityCheck check = check_identity(models(R"(, "sift_fingerprint": "sha256:aa", "sift_weights": "q8")"), kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("holds the weights as q8"), std::string::npos) << *check.refusal;
  check = check_identity(models(R"(, "sift_fingerprint": "sha256:aa", "sift_weights": "f32")"), kLocal, "http://a");
  EXPECT_FALSE(check.refusal);
  EXPECT_TRUE(check.exact);
  LabelerIdentity q8 = kLocal;
  q8.weights = "q8";
  EXPECT_FALSE(check_identity(models(R"(, "sift_fingerprint": "sha256:aa", "sift_weights": "q8")"), q8, "http://a").refusal);
  EXPECT_TRUE(check_identity(models(R"(, "sift_fingerprint": "sha256:aa", "sift_weights": "auto")"), q8, "http://a").refusal);
}

TEST(Identity, WithoutAFingerprintNameAndVocabularyDecideButNotExactly) {
  IdentityCheck check = check_identity(models(R"(, "max_model_len": 4096)"), kLocal, "http://a");
  EXPECT_FALSE(check.refusal);
  EXPECT_FALSE(check.exact);
  check = check_identity(models(R"(, "vocab_size": 151669)"), kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("151669"), std::string::npos);
  check = check_identity(models(R"(, "answers": {"yes": {"id": 1}, "no": {"id": 258}})"), kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
}

TEST(Identity, AnotherModelNameOrNoModelListIsRefused) {
  IdentityCheck check =
      check_identity(R"({"data": [{"id": "Qwen/Qwen3-Reranker-0.6B"}, {"id": "other"}]})", kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("Qwen/Qwen3-Reranker-0.6B, other"), std::string::npos) << *check.refusal;
  EXPECT_NE(check.refusal->find("not labeler"), std::string::npos) << *check.refusal;
  for (const char* body : {"", "[]", "{\"data\": 3}", "not json", "{\"data\": [3, null]}"})
    EXPECT_TRUE(check_identity(body, kLocal, "http://a").refusal) << body;
}

TEST(Identity, ASiftServerWithServedNamesIsFoundByFingerprintAndNamedAsItServesIt) {
  // sift serve --served-model-name prod --served-model-name v2: the directory's name is not listed.
  IdentityCheck check = check_identity(R"({"data": [{"id": "other", "sift_fingerprint": "sha256:bb"},
                                                    {"id": "prod", "sift_fingerprint": "sha256:aa"},
                                                    {"id": "v2", "sift_fingerprint": "sha256:aa"}]})",
                                       kLocal, "http://a");
  EXPECT_FALSE(check.refusal);
  EXPECT_TRUE(check.exact);
  EXPECT_EQ(check.served_name, "prod");
  // The local name, when listed, is the one checked (here another labeler under that name: refused).
  check = check_identity(R"({"data": [{"id": "prod", "sift_fingerprint": "sha256:aa"},
                                      {"id": "labeler", "sift_fingerprint": "sha256:bb"}]})", kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("sha256:bb"), std::string::npos) << *check.refusal;
  // No fingerprint of this labeler and no name: refused, naming what is served.
  check = check_identity(R"({"data": [{"id": "prod", "sift_fingerprint": "sha256:bb"}]})", kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("serves prod, not labeler"), std::string::npos) << *check.refusal;
  EXPECT_EQ(check_identity(models(R"(, "sift_fingerprint": "sha256:aa")"), kLocal, "http://a").served_name, "labeler");
}

TEST(Identity, DeepNestingIsRefusedAndEngineTextEscaped) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  IdentityCheck check = check_identity(models(R"(, "vocab_size": )" + deep), kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("JSON nested deeper than 64 levels"), std::string::npos) << *check.refusal;
  check = check_identity(R"({"data": [{"id": "evil\u001b[31m\nsift: ok"}]})", kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("serves evil\\x1b[31m\\nsift: ok, not labeler"), std::string::npos) << *check.refusal;
  check = check_identity(models(R"(, "sift_fingerprint": "sha256:\u009b2J")"), kLocal, "http://a");
  ASSERT_TRUE(check.refusal);
  EXPECT_NE(check.refusal->find("fingerprint sha256:\\u009b2J"), std::string::npos) << *check.refusal;
}

TEST(Endpoint, ParsesHostPortAndPrefix) {
  Endpoint e = parse_endpoint("http://127.0.0.1:8000/");
  EXPECT_EQ(e.url, "http://127.0.0.1:8000");
  EXPECT_EQ(e.host, "127.0.0.1");
  EXPECT_EQ(e.port, "8000");
  EXPECT_EQ(e.prefix, "");
  e = parse_endpoint("http://gpu-3.internal/sglang");
  EXPECT_EQ(e.host, "gpu-3.internal");
  EXPECT_EQ(e.port, "80");
  EXPECT_EQ(e.prefix, "/sglang");
  e = parse_endpoint("http://[::1]:9000");
  EXPECT_EQ(e.host, "::1");
  EXPECT_EQ(e.port, "9000");
  EXPECT_EQ(e.authority(), "[::1]:9000");  // the Host header: an IPv6 address in its brackets
  EXPECT_EQ(parse_endpoint("http://gpu-3.internal/x").authority(), "gpu-3.internal:80");
}

TEST(Endpoint, RefusesWhatIsNotAPlainHttpUrl) {
  for (const char* url : {"https://a:1", "a:1", "http://", "http://:80", "http://a:0", "http://a:65536", "http://a:8x",
                          "http://u@a:1", "http://[::1:80", "ftp://a"})
    EXPECT_THROW(parse_endpoint(url), OptionError) << url;
}

}  // namespace
}  // namespace sift::remote
