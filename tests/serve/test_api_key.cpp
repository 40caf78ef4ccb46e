// sift serve --api-key-file: one key on one line; the header must be exactly "Bearer <key>".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "core/error.h"
#include "serve/api_key.h"
#include "../io/safetensors_test_files.h"  // test::TempDir

namespace sift::serve {
namespace {

using ::testing::ThrowsMessage;

std::filesystem::path key_file(const test::TempDir& dir, const std::string& text) {
  const std::filesystem::path path = dir / "key";
  std::ofstream(path) << text;
  return path;
}

TEST(ApiKey, TheFileHoldsOneKeyOnOneLine) {
  test::TempDir dir;
  const ApiKey key = ApiKey::load(key_file(dir, "\n  s3cret \n\n"));
  EXPECT_TRUE(key.accepts("Bearer s3cret"));
  for (const char* wrong : {"", "s3cret", "Bearer s3cret ", "Bearer s3cre", "bearer s3cret", "Bearer  s3cret"})
    EXPECT_FALSE(key.accepts(wrong)) << wrong;

  // Two keys would make a server that takes one of them and refuses clients sending the other.
  const auto two = key_file(dir, "first\n\nsecond\n");
  EXPECT_THAT([&] { ApiKey::load(two); },
              ThrowsMessage<Error>(two.string() + ":3: a second line with text; the API key file holds one key, on one line"));
  const auto empty = key_file(dir, " \n\t\n");
  EXPECT_THAT([&] { ApiKey::load(empty); }, ThrowsMessage<Error>(empty.string() + ": the API key file is empty"));
  EXPECT_THAT([&] { ApiKey::load(dir / "missing"); }, ThrowsMessage<Error>(::testing::HasSubstr("cannot read")));
}

}  // namespace
}  // namespace sift::serve
