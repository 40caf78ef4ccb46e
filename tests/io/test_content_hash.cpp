// Content hashing (io/content_hash.h) and shards (io/shard.h): SHA-256 against the standard's
// vector, the labeler's fingerprint over its files only, and how --shard K/N splits members.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "io/content_hash.h"
#include "io/shard.h"

namespace sift {
namespace {

TEST(Sha256, IsTheStandardsDigest) {
  // FIPS 180-2's test vector.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Shard, ParsesKOverNAndSplitsMembersEvenlyAndDisjointly) {
  EXPECT_EQ(Shard::parse("2/4").index, 2);
  EXPECT_EQ(Shard::parse("2/4").count, 4);
  for (const char* bad : {"0/4", "5/4", "1/0", "1", "a/b", "1/2/3", "-1/2", "1/", "/2", " 1/2"})
    EXPECT_THROW(Shard::parse(bad), sift::OptionError) << bad;
  std::vector<int> sizes(4, 0);
  for (int m = 0; m < 4000; ++m) {
    const std::string member = "m" + std::to_string(m);
    int owners = 0;
    for (int k = 1; k <= 4; ++k)
      if (Shard::parse(std::to_string(k) + "/4").contains(member)) {
        ++owners;
        ++sizes[size_t(k - 1)];
      }
    EXPECT_EQ(owners, 1) << member;
  }
  for (int size : sizes) EXPECT_NEAR(size, 1000, 150);
  EXPECT_TRUE(Shard::parse("1/1").contains("anyone"));
}

TEST(Shard, IsTheFirst8BytesOfTheIdsSha256BigEndianModN) {  // the rule docs/labeling.md states
  // SHA-256("abc") (FIPS 180-2's test vector) begins ba7816bf8f01cfea; "12345" begins 5994471abb01112a.
  for (const auto& [member, h] : {std::pair<std::string, uint64_t>{"abc", 0xba7816bf8f01cfeaULL},
                                  {"12345", 0x5994471abb01112aULL}})
    for (uint64_t n : {2, 3, 7, 10, 1000})
      for (uint64_t k = 1; k <= n; ++k)
        EXPECT_EQ(Shard::parse(fmt::format("{}/{}", k, n)).contains(member), h % n == k - 1) << member << " " << k << "/" << n;
}

TEST(ArtifactFingerprint, FollowsTheLabelerFilesOnly) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("sift_fingerprint_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "sift.json") << "{\"version\": \"1\"}";
  std::ofstream(dir / "model.safetensors") << "weights";
  const std::string first = artifact_fingerprint(dir);
  EXPECT_EQ(first.rfind("sha256:", 0), 0u);
  std::ofstream(dir / "README.md") << "notes";
  EXPECT_EQ(artifact_fingerprint(dir), first) << "a README is not part of the labeler";
  std::ofstream(dir / "model.safetensors") << "weightz";
  EXPECT_NE(artifact_fingerprint(dir), first);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sift
