// No tokenizer.json can crash sift: nesting is bounded both in the JSON parser and in the
// component builders (with the component path in the message), and token ids beyond the
// int32 range are errors naming the value and where, never a silent wrap. The runaway guards
// count work, not time: bytes allocated (tests/common/allocation_counter.h) and the CPU time
// of the calling thread, which other processes on a busy machine do not add to.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <time.h>

#include <nlohmann/json.hpp>

#include "../common/allocation_counter.h"
#include "core/error.h"
#include "tokenizer/token_ids.h"
#include "tokenizer/tokenizer.h"

namespace sift {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using nlohmann::json;

json tiny_tokenizer() {
  return {{"added_tokens", json::array()},
          {"normalizer", nullptr},
          {"pre_tokenizer", nullptr},
          {"post_processor", nullptr},
          {"decoder", nullptr},
          {"model", {{"type", "BPE"}, {"vocab", {{"a", 0}, {"b", 1}, {"ab", 2}}}, {"merges", {"a b"}}}}};
}

// The message of the Error that loading `text` gives.
std::string load_error(const std::string& text) {
  try {
    Tokenizer::from_json_string(text, "tok.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// `depth` Sequences of the component, one inside the other, around a leaf:
// {"type": "Sequence", "<list_key>": [{"type": "Sequence", ...: [leaf]}]}.
std::string nested_sequences(const std::string& list_key, const std::string& leaf, size_t depth) {
  std::string open, close;
  for (size_t i = 0; i < depth; ++i) {
    open += R"({"type": "Sequence", ")" + list_key + R"(": [)";
    close += "]}";
  }
  return open + leaf + close;
}

std::string with_component(const std::string& key, const std::string& component_text) {
  std::string text = tiny_tokenizer().dump();
  const std::string null_value = "\"" + key + "\":null";
  return text.replace(text.find(null_value), null_value.size(), "\"" + key + "\":" + component_text);
}

// CPU seconds the calling thread has run.
double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

// Reproducer 3: a normalizer of type Sequence inside Sequence, 10,000 deep, overflowed the
// stack in the recursive builder.
TEST(TokenizerHostileFiles, TenThousandNestedSequencesGiveAnError) {
  const std::string text = with_component("normalizer", nested_sequences("normalizers", R"({"type": "NFC"})", 10000));
  std::string message;
  const testing::Allocations allocated = testing::allocations_of([&] { message = load_error(text); });
  EXPECT_THAT(message, AllOf(HasSubstr("tok.json"), HasSubstr("nested deeper than 64")));
  // The parser stops at the 65th level: it never holds the 10,000 levels (the text itself is
  // ~480 KB), let alone builds them.
  EXPECT_LT(allocated.bytes, static_cast<int64_t>(text.size())) << "bytes allocated while refusing it";
  // A million open brackets anywhere: the parser stops at the 65th level.
  EXPECT_THAT(load_error(std::string(1000000, '[') + std::string(1000000, ']')), HasSubstr("nested deeper than 64"));
}

TEST(TokenizerHostileFiles, SequenceNestingIsBoundedNamingThePath) {
  struct Component {
    const char* key;
    const char* list_key;
    const char* leaf;
  };
  for (const Component& c : {Component{"normalizer", "normalizers", R"({"type": "NFC"})"},
                             Component{"pre_tokenizer", "pretokenizers", R"({"type": "Whitespace"})"},
                             Component{"decoder", "decoders", R"({"type": "Fuse"})"},
                             Component{"post_processor", "processors", R"({"type": "ByteLevel"})"}}) {
    // 16 levels load (Hugging Face files use one); the 17th is refused, within the JSON limit.
    EXPECT_EQ(load_error(with_component(c.key, nested_sequences(c.list_key, c.leaf, 16))), "no error") << c.key;
    const std::string path = std::string(c.key) + "." + c.list_key + "[0]";
    EXPECT_THAT(load_error(with_component(c.key, nested_sequences(c.list_key, c.leaf, 17))),
                AllOf(HasSubstr("tok.json: " + path), HasSubstr("Sequence nested more than 16 levels deep")))
        << c.key;
  }
}

// Reproducer 5: ids beyond int32 wrapped silently.
TEST(TokenizerHostileFiles, VocabularyIdsBeyondInt32AreErrors) {
  for (const json& id : {json(int64_t{1} << 32), json(int64_t{1} << 31), json(-1), json(uint64_t{1} << 63)}) {
    json config = tiny_tokenizer();
    config["model"]["vocab"]["b"] = id;
    EXPECT_THAT(load_error(config.dump()),
                AllOf(HasSubstr("tok.json: model: vocab[\"b\"]"), HasSubstr(id.dump()), HasSubstr("[0, 2147483647]")));
  }
  json config = tiny_tokenizer();
  config["model"]["vocab"]["b"] = "1";
  EXPECT_THAT(load_error(config.dump()), HasSubstr("must be an integer token id"));
}

TEST(TokenizerHostileFiles, AddedTokenAndPostProcessorIdsBeyondInt32AreErrors) {
  json config = tiny_tokenizer();
  config["added_tokens"] = {{{"id", 3}, {"content", "<s>"}, {"special", true}},
                            {{"id", int64_t{4294967299}}, {"content", "</s>"}, {"special", true}}};
  EXPECT_THAT(load_error(config.dump()), AllOf(HasSubstr("added_tokens[1].id is 4294967299")));

  config = tiny_tokenizer();
  config["post_processor"] = {{"type", "TemplateProcessing"},
                              {"single", {{{"SpecialToken", {{"id", "<s>"}}}}, {{"Sequence", {{"id", "A"}}}}}},
                              {"special_tokens", {{"<s>", {{"ids", {int64_t{1} << 40}}}}}}};
  EXPECT_THAT(load_error(config.dump()), HasSubstr("special_tokens[\"<s>\"].ids[0] is 1099511627776"));
  config["post_processor"] = {{"type", "BertProcessing"}, {"cls", {"[CLS]", -5}}, {"sep", {"[SEP]", 1}}};
  EXPECT_THAT(load_error(config.dump()), HasSubstr("cls[1] is -5"));
}

TEST(TokenizerHostileFiles, AnAddedTokenIdNearTheTopCountsWithoutALoopOverIds) {
  json config = tiny_tokenizer();
  config["added_tokens"] = {{{"id", 2147483647}, {"content", "<top>"}, {"special", true}}};
  const auto tokenizer = Tokenizer::from_json_string(config.dump(), "tok.json");
  const double cpu_before = thread_cpu_seconds();
  EXPECT_EQ(tokenizer->vocab_size(), 4);
  // A loop over the 2^31 ids below it takes seconds of CPU even at a nanosecond an id; the
  // count over the added tokens takes microseconds.
  EXPECT_LT(thread_cpu_seconds() - cpu_before, 1.0) << "CPU seconds of this thread";
  EXPECT_EQ(tokenizer->decode({2147483647, 0}, false), "<top> a");
}

TEST(TokenIds, RangeIsZeroToInt32Max) {
  EXPECT_EQ(token_id_from_json(json(2147483647), "x"), 2147483647);
  EXPECT_EQ(token_id_from_json(json(uint64_t{5}), "x"), 5);
  EXPECT_THAT([] { token_id_from_json(json(2147483648), "line 3: ids[1]"); },
              ::testing::ThrowsMessage<Error>("line 3: ids[1] is 2147483648, outside the token id range [0, 2147483647]"));
  EXPECT_THROW(token_id_from_json(json(1.5), "x"), Error);
  EXPECT_EQ(token_ids_from_json(json{1, 2}, "ids"), (std::vector<int32_t>{1, 2}));
  EXPECT_THAT([] { token_ids_from_json(json{1, -2}, "ids"); }, ::testing::ThrowsMessage<Error>(HasSubstr("ids[1] is -2")));
}

}  // namespace
}  // namespace sift
