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

// A key no client can send would start a server that refuses everyone: it is refused at start-up,
// naming the file, the line and the byte.
TEST(ApiKey, AKeyIsPrintableAsciiWithoutSpaces) {
  test::TempDir dir;
  const auto message = [&](const std::string& text) {
    const auto file = key_file(dir, text);
    try {
      ApiKey::load(file);
    } catch (const Error& e) {
      return std::string(e.what()).substr(file.string().size());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(message("\xEF\xBB\xBFs3cret\n"),
            ": byte 1: a UTF-8 byte-order mark (EF BB BF); save the file without one (the key is printable ASCII)");
  EXPECT_THAT(message(std::string("s3\0cret\n", 8)), ::testing::StartsWith(":1: byte 3 (0x00) is a NUL"));
  EXPECT_THAT(message("\n\ns3\x01" "cret\n"), ::testing::StartsWith(":3: byte 5 (0x01) is a control character"));
  EXPECT_THAT(message("s3\tcret"), ::testing::StartsWith(":1: byte 3 (0x09) is a control character"));
  EXPECT_THAT(message("s3 cret"), ::testing::StartsWith(":1: byte 3 (0x20) is a space"));
  EXPECT_THAT(message("s3cr\xC3\xA9t"), ::testing::StartsWith(":1: byte 5 (0xC3) is not ASCII"));
  EXPECT_THAT(message("s3cret\x7F"), ::testing::StartsWith(":1: byte 7 (0x7F) is a control character"));
  EXPECT_EQ(message(""), ": the API key file is empty");
  EXPECT_THAT(message(std::string(70'000, 'k')), ::testing::StartsWith(": larger than 65536 bytes"));
  EXPECT_EQ(message("\r\n s3cret\r\n"), "(accepted)") << "a Windows line end is whitespace around the key";
}

}  // namespace
}  // namespace sift::serve
