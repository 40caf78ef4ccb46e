// SafetensorsFile: dtype conversions, the writer's round trip, page release, and every kind
// of broken file giving an Error that names the problem (and never a crash).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <limits>

#include "core/error.h"
#include "io/dtype.h"
#include "io/safetensors.h"
#include "io/safetensors_writer.h"
#include "safetensors_test_files.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using test::safetensors_bytes;
using test::TempDir;

// Expects opening `bytes` (from disk and from memory) to fail with all of `parts` in the message.
template <typename... Parts>
void expect_broken(const std::string& bytes, const Parts&... parts) {
  TempDir dir;
  const auto path = dir / "broken.safetensors";
  test::write_bytes(path, bytes);
  try {
    SafetensorsFile::open(path);
    ADD_FAILURE() << "opened a broken file without an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr(path.string()));
    for (const std::string& part : {std::string(parts)...}) EXPECT_THAT(e.what(), HasSubstr(part));
  }
  const std::span<const std::byte> memory(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size());
  try {
    SafetensorsFile::from_memory(memory, "memory-file");
    ADD_FAILURE() << "from_memory accepted a broken file";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("memory-file"));
    for (const std::string& part : {std::string(parts)...}) EXPECT_THAT(e.what(), HasSubstr(part));
  }
}

// ---- dtype conversions ----

TEST(Dtype, F16WideningIsExactForEveryBitPattern) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float sign = (bits & 0x8000) ? -1.0f : 1.0f;
    const int exponent = (bits >> 10) & 0x1F;
    const int mantissa = bits & 0x3FF;
    const float got = f16_to_f32(static_cast<uint16_t>(bits));
    if (exponent == 0x1F) {
      if (mantissa == 0) EXPECT_EQ(got, sign * std::numeric_limits<float>::infinity()) << bits;
      else EXPECT_TRUE(std::isnan(got)) << bits;
      continue;
    }
    const float expected = exponent == 0 ? sign * std::ldexp(static_cast<float>(mantissa), -24)
                                         : sign * std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
    ASSERT_EQ(std::bit_cast<uint32_t>(got), std::bit_cast<uint32_t>(expected)) << "f16 bits " << bits;
  }
  EXPECT_EQ(f16_to_f32(0x3C00), 1.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(f16_to_f32(0x7BFF), 65504.0f);
  EXPECT_TRUE(std::signbit(f16_to_f32(0x8000)));
}

TEST(Dtype, Bf16NarrowingRoundsToNearestEven) {
  const float one = 1.0f;
  const float half_ulp = std::ldexp(1.0f, -8);  // bf16 keeps 7 mantissa bits: ulp(1) = 2^-7
  EXPECT_EQ(f32_to_bf16(one + half_ulp), 0x3F80);                                  // tie -> even (down)
  EXPECT_EQ(f32_to_bf16(one + 3 * half_ulp), 0x3F82);                              // tie -> even (up)
  EXPECT_EQ(f32_to_bf16(one + half_ulp + std::ldexp(1.0f, -20)), 0x3F81);          // above the tie
  EXPECT_EQ(f32_to_bf16(-(one + half_ulp - std::ldexp(1.0f, -20))), 0xBF80);       // below the tie
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::max()), 0x7F80);               // rounds to inf
  EXPECT_EQ(f32_to_bf16(std::numeric_limits<float>::infinity()), 0x7F80);
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::bit_cast<float>(0x7F800001u)))));  // NaN stays NaN
  EXPECT_EQ(bf16_to_f32(0x3FC0), 1.5f);
}

TEST(Dtype, F16NarrowingRoundTripsEveryValueAndRoundsToNearestEven) {
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    if (((bits >> 10) & 0x1F) == 0x1F && (bits & 0x3FF) != 0) continue;  // NaN: checked below
    ASSERT_EQ(f32_to_f16(f16_to_f32(static_cast<uint16_t>(bits))), bits) << "f16 bits " << bits;
  }
  // Between two neighbours the halfway point goes to the even one, anything else to the nearer.
  for (uint32_t bits : {0x0000u, 0x0001u, 0x03FFu, 0x0400u, 0x3C00u, 0x3C01u, 0x7BFEu, 0x8401u}) {
    const float low = f16_to_f32(static_cast<uint16_t>(bits)), high = f16_to_f32(static_cast<uint16_t>(bits + 1));
    const float mid = low + (high - low) / 2;  // exact: the f32 grid is finer
    EXPECT_EQ(f32_to_f16(mid), (bits & 1) ? bits + 1 : bits) << "tie above f16 bits " << bits;
    EXPECT_EQ(f32_to_f16(std::nextafter(mid, high)), bits + 1) << bits;
    EXPECT_EQ(f32_to_f16(std::nextafter(mid, low)), bits) << bits;
  }
  EXPECT_EQ(f32_to_f16(65519.0f), 0x7BFF);  // below the tie with the next (inf) step
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7C00);
  EXPECT_EQ(f32_to_f16(std::ldexp(1.0f, -25)), 0x0000);   // tie between 0 and the smallest subnormal: even
  EXPECT_EQ(f32_to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(f32_to_f16(-std::numeric_limits<float>::infinity()), 0xFC00);
  EXPECT_TRUE(std::isnan(f16_to_f32(f32_to_f16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Dtype, ParsesOnlySupportedNames) {
  EXPECT_EQ(parse_dtype("F32"), DType::F32);
  EXPECT_EQ(parse_dtype("BF16"), DType::BF16);
  EXPECT_EQ(parse_dtype("F16"), DType::F16);
  EXPECT_FALSE(parse_dtype("I64").has_value());
  EXPECT_FALSE(parse_dtype("f32").has_value());
}

// ---- writer round trip ----

TEST(Writer, F32RoundTripsExactlyAcrossChunks) {
  TempDir dir;
  const int64_t n = kWriteChunk + 3;  // crosses a fill chunk boundary
  std::vector<float> big(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) big[i] = std::sin(static_cast<float>(i)) * 1e3f;
  std::vector<float> small = {1.0f, -2.5f, 3.25f, 0.0f, -0.0f, 1e-40f};
  write_safetensors(dir / "m.safetensors",
                    {TensorSource::from_data("a.big", {n}, big), TensorSource::from_data("b.small", {2, 3}, small)},
                    DType::F32, {{"note", "test"}});
  auto file = SafetensorsFile::open(dir / "m.safetensors");
  ASSERT_EQ(file.tensors().size(), 2u);
  EXPECT_EQ(file.metadata().value("format", ""), "pt");
  EXPECT_EQ(file.metadata().value("note", ""), "test");
  EXPECT_EQ(file.info("b.small").shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(file.info("a.big").dtype, DType::F32);
  EXPECT_EQ(file.read_f32("a.big"), big);
  const auto back = file.read_f32("b.small");
  for (size_t i = 0; i < small.size(); ++i)
    EXPECT_EQ(std::bit_cast<uint32_t>(back[i]), std::bit_cast<uint32_t>(small[i])) << i;
  // The header is padded to 8 bytes, as the reference writer does.
  std::ifstream in(dir / "m.safetensors", std::ios::binary);
  uint64_t header_len = 0;
  in.read(reinterpret_cast<char*>(&header_len), 8);
  EXPECT_EQ(header_len % 8, 0u);
  EXPECT_FALSE(std::filesystem::exists(dir / "m.safetensors.tmp"));
}

TEST(Writer, Bf16StoresRoundedValues) {
  TempDir dir;
  const float half_ulp = std::ldexp(1.0f, -8);
  std::vector<float> values = {1.0f + half_ulp, 1.0f + 3 * half_ulp, -1.0f - half_ulp - std::ldexp(1.0f, -20),
                               3.14159265f, -0.0f, std::numeric_limits<float>::infinity()};
  write_safetensors(dir / "m.safetensors", {TensorSource::from_data("w", {6}, values)}, DType::BF16);
  auto file = SafetensorsFile::open(dir / "m.safetensors");
  EXPECT_EQ(file.info("w").dtype, DType::BF16);
  EXPECT_EQ(file.info("w").bytes.size(), 12u);
  const auto back = file.read_f32("w");
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 1.0f + 4 * half_ulp);
  EXPECT_EQ(back[2], -1.0f - 2 * half_ulp);
  EXPECT_EQ(back[3], 3.140625f);
  EXPECT_TRUE(std::signbit(back[4]));
  EXPECT_TRUE(std::isinf(back[5]));
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(back[i], bf16_to_f32(f32_to_bf16(values[i])));
}

TEST(Writer, F16StoresRoundedValues) {
  TempDir dir;
  const float half_ulp = std::ldexp(1.0f, -11);  // f16 keeps 10 mantissa bits
  std::vector<float> values = {1.0f + half_ulp, 1.0f + 3 * half_ulp, 3.14159265f, -0.0f, 65504.0f, 1e-7f};
  write_safetensors(dir / "m.safetensors", {TensorSource::from_data("w", {6}, values)}, DType::F16);
  auto file = SafetensorsFile::open(dir / "m.safetensors");
  EXPECT_EQ(file.info("w").dtype, DType::F16);
  EXPECT_EQ(file.info("w").bytes.size(), 12u);
  const auto back = file.read_f32("w");
  EXPECT_EQ(back[0], 1.0f);
  EXPECT_EQ(back[1], 1.0f + 4 * half_ulp);
  EXPECT_EQ(back[2], 3.140625f);
  EXPECT_TRUE(std::signbit(back[3]));
  EXPECT_EQ(back[4], 65504.0f);
  EXPECT_EQ(back[5], std::ldexp(2.0f, -24));  // 1e-7 = 1.68 x 2^-24: the subnormal 2 x 2^-24
}

TEST(Writer, RejectsDuplicateNames) {
  TempDir dir;
  std::vector<float> v = {1.0f};
  EXPECT_THROW(write_safetensors(dir / "m.safetensors",
                                 {TensorSource::from_data("x", {1}, v), TensorSource::from_data("x", {1}, v)},
                                 DType::F32),
               Error);
  EXPECT_THROW(TensorSource::from_data("x", {2}, v), Error);
}

// ---- reading ----

TEST(Reader, ReadsF16AndBf16AndUnalignedData) {
  // Header of odd length: the data section starts at an unaligned address.
  const std::string header =
      R"({"h":{"dtype":"F16","shape":[3],"data_offsets":[0,6]},"b":{"dtype":"BF16","shape":[1],"data_offsets":[6,8]},)"
      R"("f":{"dtype":"F32","shape":[1],"data_offsets":[8,12]},"e":{"dtype":"F32","shape":[0,4],"data_offsets":[12,12]}} )";
  std::string data = {'\x00', '\x3C', '\x01', '\x00', '\x00', '\x7C'};  // 1.0, 2^-24, +inf
  data += std::string{'\xC0', '\x3F'};                                   // bf16 1.5
  data += test::f32_bytes({-7.5f});
  const std::string bytes = safetensors_bytes(header, data);
  auto file = SafetensorsFile::from_memory({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, "mem");
  EXPECT_EQ(file.read_f32("h"), (std::vector<float>{1.0f, std::ldexp(1.0f, -24), INFINITY}));
  EXPECT_EQ(file.read_f32("b"), (std::vector<float>{1.5f}));
  EXPECT_EQ(file.read_f32("f"), (std::vector<float>{-7.5f}));
  EXPECT_TRUE(file.read_f32("e").empty());
  EXPECT_EQ(file.info("e").n_elements(), 0);
  EXPECT_EQ(file.find("nope"), nullptr);
  EXPECT_THAT([&] { file.info("nope"); }, ::testing::ThrowsMessage<Error>(HasSubstr("no tensor named \"nope\"")));
  std::vector<float> wrong_size(2);
  EXPECT_THROW(file.read_f32_into(file.info("h"), wrong_size), Error);
}

// Resident mapped-file pages of this process, from /proc/self/status (kB): RssFile, plus
// RssShmem for when the temp dir is a tmpfs.
long rss_mapped_kb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  long total = -1;
  while (std::getline(status, line))
    if (line.rfind("RssFile:", 0) == 0 || line.rfind("RssShmem:", 0) == 0)
      total = std::max(total, 0L) + std::stol(line.substr(line.find(':') + 1));
  return total;
}

TEST(Reader, ReleaseDropsTheMappedPagesAndKeepsDataReadable) {
  TempDir dir;
  const int64_t n = 16 << 20;  // 64 MiB of F32
  write_safetensors(dir / "m.safetensors",
                    {{"w", {n}, [](int64_t first, std::span<float> out) {
                        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<float>((first + i) % 1000);
                      }}},
                    DType::F32);
  auto file = SafetensorsFile::open(dir / "m.safetensors");
  const TensorInfo& w = file.info("w");
  std::vector<float> values(static_cast<size_t>(n));
  const long before = rss_mapped_kb();
  file.read_f32_into(w, values);
  const long touched = rss_mapped_kb();
  file.release(w);
  const long released = rss_mapped_kb();
  ASSERT_GE(before, 0) << "no RssFile in /proc/self/status";
  EXPECT_GT(touched - before, 48 * 1024) << "reading should have mapped ~64 MiB";
  EXPECT_LT(released, touched - 48 * 1024) << "release should have dropped ~64 MiB";
  EXPECT_EQ(file.read_f32("w")[123456], 456.0f);  // pages come back from the file
}

TEST(Reader, MoveKeepsTensorsValid) {
  TempDir dir;
  std::vector<float> v = {1, 2, 3};
  write_safetensors(dir / "m.safetensors", {TensorSource::from_data("v", {3}, v)}, DType::F32);
  auto a = SafetensorsFile::open(dir / "m.safetensors");
  SafetensorsFile b = std::move(a);
  EXPECT_EQ(b.read_f32("v"), v);
}

// ---- broken files ----

const std::string kGoodHeader = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
const std::string kGoodData = test::f32_bytes({1, 2, 3, 4});

TEST(Broken, ValidBaselineOpens) {
  const std::string bytes = safetensors_bytes(kGoodHeader, kGoodData);
  auto file = SafetensorsFile::from_memory({reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, "mem");
  EXPECT_EQ(file.read_f32("w"), (std::vector<float>{1, 2, 3, 4}));
}

TEST(Broken, MissingFile) {
  TempDir dir;
  EXPECT_THAT([&] { SafetensorsFile::open(dir / "absent.safetensors"); },
              ::testing::ThrowsMessage<Error>(AllOf(HasSubstr("absent.safetensors"), HasSubstr("cannot open"))));
}

TEST(Broken, ShorterThanTheLengthField) { expect_broken("\x05\x00\x00", "too short"); }
TEST(Broken, EmptyFile) { expect_broken("", "too short"); }

TEST(Broken, HeaderLongerThanFile) {
  expect_broken(test::u64_le(1000) + kGoodHeader, "header length 1000", "longer than");
}

TEST(Broken, HugeHeaderLength) {
  expect_broken(test::u64_le(uint64_t{1} << 62) + kGoodHeader, "exceeds the limit");
  expect_broken(test::u64_le(~uint64_t{0}) + kGoodHeader, "exceeds the limit");
}

TEST(Broken, TruncatedData) {
  expect_broken(safetensors_bytes(kGoodHeader, kGoodData.substr(0, 10)), "tensor \"w\"", "out of range",
                "truncated");
}

TEST(Broken, InvalidJson) {
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32",)", kGoodData), "invalid JSON at column");
  expect_broken(safetensors_bytes(std::string("\xff\xfe{}", 4), ""), "invalid JSON at column 1");
}

TEST(Broken, HeaderNotAnObject) {
  expect_broken(safetensors_bytes("[1,2,3]", ""), "must be a JSON object");
  expect_broken(safetensors_bytes(R"({"w":[1]})", ""), "tensor \"w\"", "must be an object");
  expect_broken(safetensors_bytes(R"({"__metadata__":[1]})", ""), "__metadata__");
}

TEST(Broken, UnknownDtype) {
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"I64","shape":[2],"data_offsets":[0,16]}})", kGoodData),
                "tensor \"w\"", "\"I64\"", "not supported");
}

TEST(Broken, MissingFields) {
  expect_broken(safetensors_bytes(R"({"w":{"shape":[4],"data_offsets":[0,16]}})", kGoodData), "tensor \"w\"", "dtype");
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","data_offsets":[0,16]}})", kGoodData), "tensor \"w\"", "shape");
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0]}})", kGoodData), "tensor \"w\"",
                "data_offsets");
}

TEST(Broken, BadShapeValues) {
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[-4],"data_offsets":[0,16]}})", kGoodData),
                "tensor \"w\"", "non-negative");
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[2.5],"data_offsets":[0,16]}})", kGoodData),
                "tensor \"w\"", "non-negative integer");
  expect_broken(
      safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4611686018427387904,4611686018427387904],"data_offsets":[0,16]}})",
                        kGoodData),
      "tensor \"w\"", "too large");
}

TEST(Broken, ShapeDisagreesWithOffsets) {
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[3,2],"data_offsets":[0,16]}})", kGoodData),
                "tensor \"w\"", "[3, 2]", "needs 24 bytes", "span 16");
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"BF16","shape":[2,2],"data_offsets":[0,16]}})", kGoodData),
                "tensor \"w\"", "needs 8 bytes");
}

TEST(Broken, OffsetsOutOfRange) {
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[8,24]}})", kGoodData),
                "tensor \"w\"", "[8, 24]", "out of range");
  expect_broken(
      safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[18446744073709551610,6]}})", kGoodData),
      "tensor \"w\"", "out of order");
  expect_broken(safetensors_bytes(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[-16,0]}})", kGoodData),
                "tensor \"w\"", "data_offsets[0]");
}

TEST(Broken, OverlappingOffsets) {
  expect_broken(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,12]},)"
                                  R"("b":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                                  kGoodData),
                "\"a\"", "\"b\"", "overlapping");
  expect_broken(safetensors_bytes(R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]},)"
                                  R"("b":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})",
                                  kGoodData),
                "overlapping");
}

}  // namespace
}  // namespace sift
