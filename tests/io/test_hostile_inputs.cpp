// Hostile files at the io layer: JSON nesting is bounded (parse_json), the F32 conversion
// finds the first NaN / Inf in the same pass for every dtype, and Checkpoint refuses
// non-finite weights naming the tensor and element.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/error.h"
#include "io/checkpoint.h"
#include "io/dtype.h"
#include "io/json_parse.h"
#include "io/safetensors_writer.h"
#include "safetensors_test_files.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::ThrowsMessage;
using test::TempDir;

std::string nested_arrays(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(ParseJson, NestingIsBoundedAt64Levels) {
  EXPECT_EQ(parse_json(nested_arrays(64), "x.json").dump(), nested_arrays(64));
  EXPECT_THAT([] { parse_json(nested_arrays(65), "x.json"); },
              ThrowsMessage<Error>("x.json: JSON nested deeper than 64 levels"));
  EXPECT_THAT([] { parse_json(nested_arrays(1000000), ""); },
              ThrowsMessage<Error>("JSON nested deeper than 64 levels"));
  std::string objects = "1";
  for (int i = 0; i < 200; ++i) objects = "{\"a\":" + objects + "}";
  std::istringstream deep_objects(objects);
  EXPECT_THROW(parse_json<nlohmann::ordered_json>(deep_objects, "s.json"), Error);
}

TEST(ParseJson, ErrorsAreWordsWithLineAndColumn) {
  EXPECT_THAT([] { parse_json("{\"a\": ", "x.json"); },
              ThrowsMessage<Error>("x.json: invalid JSON at column 7: unexpected end of input; expected '[', '{', or a "
                                   "literal"));
  EXPECT_THAT([] { parse_json("{\n  \"a\": 1,\n  }\n", "c.json"); },
              ThrowsMessage<Error>("c.json: invalid JSON at line 3, column 3: unexpected '}'; expected string literal"));
  EXPECT_THAT([] { parse_json("{\"id\": 1e999}", ""); },
              ThrowsMessage<Error>("invalid JSON at column 8: the number 1e999 is beyond the range of a double"));
  EXPECT_THAT([] { parse_json("[1,\n 2,\n -1e400]", "n.json"); },
              ThrowsMessage<Error>("n.json: invalid JSON at line 3, column 2: the number -1e400 is beyond the range of "
                                   "a double"));
  EXPECT_THAT([] { parse_json("", "e.json"); },
              ThrowsMessage<Error>(HasSubstr("e.json: invalid JSON at column 1: unexpected end of input")));
  EXPECT_THAT([] { parse_json("nul", ""); }, ThrowsMessage<Error>(HasSubstr("invalid literal")));
  for (const char* bad : {"{", "[1,]", "\"\\u", "{\"a\" 1}", "tru", "1 2", "\"\xff\x01\""})
    EXPECT_THAT([&] { parse_json(bad, "b.json"); },
                ThrowsMessage<Error>(AllOf(HasSubstr("b.json: invalid JSON at column "),
                                           ::testing::Not(HasSubstr("json.exception")))))
        << bad;
}

TEST(ParseJson, TextThatQuotesTheLibrarysOwnWordsIsAnErrorNotAnOverread) {
  // Found by fuzz_model_config and fuzz_tokenizer_load: an unterminated string holding
  // nlohmann's "number overflow parsing '" wording, so the error message "quotes" an empty
  // number; the column arithmetic must not step past the text.
  for (const char* bad : {"{\n  \"originnumber overflow parsing '", "\n\"number overflow parsing '",
                          "\"number overflow parsing ''"})
    EXPECT_THAT([&] { parse_json(bad, "q.json"); }, ThrowsMessage<Error>(HasSubstr("q.json: invalid JSON at "))) << bad;
}

TEST(ParseJson, StrictRulesRefuseDuplicateKeysAndInexactIntegersNamingThePath) {
  const JsonStrict strict{.unique_keys = true, .exact_integers = true, .array_cap = std::nullopt};
  const auto path_of_error = [&](const std::string& text) -> std::string {
    try {
      parse_json(text, "", strict);
    } catch (const JsonValueError& e) {
      EXPECT_THAT(e.what(), ::testing::StartsWith(e.path().empty() ? "the " : e.path() + ": ")) << text;
      return e.path();
    }
    return "(parsed)";
  };
  EXPECT_EQ(path_of_error(R"({"query": "a", "query": "b"})"), "query");
  EXPECT_EQ(path_of_error(R"({"items": ["x", {"text": "a", "id": 1, "text": "b"}]})"), "items[1].text");
  EXPECT_EQ(path_of_error(R"({"a": {"b": 1}, "c": {"b": 2, "d": [[], {"e": 1, "e": 1}]}})"), "c.d[1].e");
  EXPECT_EQ(path_of_error(R"({"items": [{"id": 99999999999999999999, "text": "a"}]})"), "items[0].id");
  EXPECT_EQ(path_of_error(R"([1, 2, -9223372036854775809])"), "[2]");
  EXPECT_EQ(path_of_error("18446744073709551616"), "");
  EXPECT_THAT([&] { parse_json(R"({"a": 1, "a": 2})", "", strict); },
              ThrowsMessage<JsonValueError>("a: the key \"a\" appears twice in one object"));
  EXPECT_THAT([&] { parse_json(R"({"n": [0, 123456789012345678901234]})", "", strict); },
              ThrowsMessage<JsonValueError>("n[1]: the integer 123456789012345678901234 does not fit 64 bits (send it as "
                                            "a string)"));

  // Within the rules: the same key in different objects, the 64-bit extremes (exact), floats.
  const nlohmann::json ok = parse_json(
      R"({"a": {"k": 1}, "b": {"k": 2}, "ids": [9007199254740993, 18446744073709551615, -9223372036854775808], "f": 1e20})",
      "", strict);
  EXPECT_EQ(ok["ids"].dump(), "[9007199254740993,18446744073709551615,-9223372036854775808]");
  EXPECT_EQ(ok["f"].get<double>(), 1e20);
  // Without them (files, input rows): JSON's own rules, the last key wins.
  EXPECT_EQ(parse_json(R"({"a": 1, "a": 2})", "")["a"], 2);
  EXPECT_TRUE(parse_json("99999999999999999999", "").is_number_float());
}

TEST(ParseJson, SafetensorsHeaderAndIndexAreBounded) {
  const std::string file = test::safetensors_bytes("{\"__metadata__\": " + nested_arrays(100000) + "}", "");
  EXPECT_THAT([&] { SafetensorsFile::from_memory(std::as_bytes(std::span(file)), "deep.safetensors"); },
              ThrowsMessage<Error>(AllOf(HasSubstr("deep.safetensors header"), HasSubstr("nested deeper than 64"))));
  TempDir dir;
  test::write_bytes(dir / "model.safetensors.index.json", "{\"weight_map\": " + nested_arrays(100000) + "}");
  EXPECT_THAT([&] { Checkpoint::open(dir.path()); },
              ThrowsMessage<Error>(AllOf(HasSubstr("model.safetensors.index.json"), HasSubstr("nested deeper"))));
}

// Raw little-endian bytes of `n` elements of `Bits` all equal to `fill`, with `bad` at `at`.
template <typename Bits>
std::vector<std::byte> elements(size_t n, Bits fill, size_t at, Bits bad) {
  std::vector<Bits> values(n, fill);
  if (at < n) values[at] = bad;
  const auto* bytes = reinterpret_cast<const std::byte*>(values.data());
  return {bytes, bytes + n * sizeof(Bits)};
}

TEST(ConvertToF32, ReturnsTheFirstNonFiniteElementForEveryDtype) {
  struct Case {
    DType dtype;
    uint32_t one, nan, inf, largest_finite;
  };
  const Case cases[] = {{DType::F32, 0x3F800000u, 0x7FC00001u, 0xFF800000u, 0x7F7FFFFFu},
                        {DType::BF16, 0x3F80u, 0x7FC1u, 0xFF80u, 0x7F7Fu},
                        {DType::F16, 0x3C00u, 0x7E01u, 0xFC00u, 0x7BFFu}};
  for (const Case& c : cases) {
    for (const size_t n : {size_t{1}, size_t{7}, size_t{64}, size_t{1001}}) {
      for (const size_t at : {size_t{0}, n / 2, n - 1, n}) {  // at == n: all finite
        for (const uint32_t bad : {c.nan, c.inf, c.largest_finite}) {
          const bool finite = bad == c.largest_finite || at == n;
          const auto src = c.dtype == DType::F32 ? elements<uint32_t>(n, c.one, at, bad)
                                                 : elements<uint16_t>(n, static_cast<uint16_t>(c.one), at,
                                                                      static_cast<uint16_t>(bad));
          std::vector<float> dst(n);
          const size_t first = convert_to_f32(c.dtype, src.data(), dst.data(), n);
          EXPECT_EQ(first, finite ? n : at) << dtype_name(c.dtype) << " n=" << n << " at=" << at << " bad=" << bad;
          if (at != 0) {
            EXPECT_EQ(dst[0], 1.0f);  // converted all the same
          }
          if (!finite) {
            EXPECT_FALSE(std::isfinite(dst[at]));
          }
        }
      }
    }
  }
  EXPECT_EQ(convert_to_f32(DType::BF16, nullptr, nullptr, 0), 0u);  // empty: nothing to read
}

TEST(CheckpointWeights, NonFiniteValuesAreErrorsNamingTensorAndElement) {
  TempDir dir;
  std::vector<float> values(300, 0.5f);
  values[123] = -std::numeric_limits<float>::infinity();
  const std::vector<float> clean(4, 1.0f);
  write_safetensors(dir / "model.safetensors",
                    {TensorSource::from_data("w", {3, 100}, values), TensorSource::from_data("v", {4}, clean)},
                    DType::BF16);
  const Checkpoint checkpoint = Checkpoint::open(dir.path());
  EXPECT_THAT([&] { checkpoint.read_f32("w", {3, 100}); },
              ThrowsMessage<Error>(AllOf(HasSubstr(dir.path().string()), HasSubstr("tensor \"w\" holds -inf at element 123"))));
  std::vector<float> row(100);
  EXPECT_NO_THROW(checkpoint.read_f32_range("w", 200, row));  // the rows after the bad one are finite
  EXPECT_THAT([&] { checkpoint.read_f32_range("w", 100, row); }, ThrowsMessage<Error>(HasSubstr("at element 123")));
  EXPECT_THAT([&] { checkpoint.read_f32_range("w", 250, row); }, ThrowsMessage<Error>(HasSubstr("[250, 350)")));
  EXPECT_EQ(checkpoint.read_f32("v", {4}), clean);
  // The file reader itself converts as is (it is not only for weights).
  const SafetensorsFile file = SafetensorsFile::open(dir / "model.safetensors");
  EXPECT_TRUE(std::isinf(file.read_f32("w")[123]));
}

}  // namespace
}  // namespace sift
