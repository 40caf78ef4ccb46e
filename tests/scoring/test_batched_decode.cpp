// Batched greedy decoding (scoring/batched_decode.h) against one-row decoding (greedy_decode,
// the plain reference) on random checkpoints: every row's tokens and every logit it chose them
// from are the same bits, whatever the rows beside it (1 row, many, of different lengths,
// finishing early, joining mid-decode), their order, the token budget, compaction of the key
// space and the thread count.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <set>

#include "core/error.h"
#include "model/model.h"
#include "model/session.h"
#include "scoring/batched_decode.h"
#include "scoring/generate_mode.h"
#include "scoring_checkpoints.h"

namespace sift {
namespace {

struct Variant {
  const char* architecture;
  DType dtype;
  WeightStorage storage = WeightStorage::Auto;
};

std::string variant_name(const ::testing::TestParamInfo<Variant>& info) {
  return std::string(info.param.architecture) + "_" + std::string(dtype_name(info.param.dtype)) + "_" +
         std::string(weight_storage_name(info.param.storage));
}

// A row: its prompt, budget and after how many tokens its stop rule fires (0: never).
struct RowSpec {
  std::vector<int32_t> prompt;
  int64_t budget = 0;
  int64_t stop_after_n = 0;
};

// What decoding gave a row: its tokens, and the bytes of each logit row they were chosen from.
struct Decoded {
  std::vector<int32_t> tokens;
  std::vector<std::vector<float>> logits;
};

// The stop rule of a spec: true at its stop_after_n-th token (a fresh count per call).
std::function<bool(int32_t)> stop_rule(const RowSpec& spec) {
  return [n = spec.stop_after_n, seen = int64_t{0}](int32_t) mutable { return n > 0 && ++seen == n; };
}

// A real session that records what the batched decoder asks of it: per call the key offset and
// whether prompts (segments without context, more than one token) ran beside steps; moves of
// keys from inside the regions (compaction) rather than from the call's tail.
class RecordingSession : public Session {
 public:
  using Session::Session;
  LogitsView forward(const ForwardRequest& request) override {
    last_offset = n_cached();
    max_offset = std::max(max_offset, last_offset);
    bool prompts = false, steps = false;
    for (const Segment& s : request.segments) (s.context_end > s.context_begin ? steps : prompts) = true;
    mixed_calls += prompts && steps ? 1 : 0;
    return Session::forward(request);
  }
  void move_keys(KeyRange from, int64_t to) override {
    if (from.begin < last_offset) ++compactions;
    Session::move_keys(from, to);
  }
  int64_t last_offset = 0, max_offset = 0, mixed_calls = 0, compactions = 0;
};

class BatchedDecode : public ::testing::TestWithParam<Variant> {
 protected:
  void SetUp() override {
    dir_ = testing::write_scoring_test_checkpoint(GetParam().architecture, GetParam().dtype);
    model_ = Model::load(dir_, GetParam().storage);
  }
  void TearDown() override { testing::remove_scoring_test_checkpoints(); }

  // Rows of different prompt lengths and budgets; some stop early by their rule.
  std::vector<RowSpec> rows(size_t n, uint32_t seed) const {
    std::mt19937 rng(seed);
    std::vector<RowSpec> out(n);
    for (size_t r = 0; r < n; ++r) {
      out[r].prompt.resize(3 + rng() % 40);
      for (int32_t& id : out[r].prompt) id = static_cast<int32_t>(rng() % model_->config().vocab_size);
      out[r].budget = 1 + static_cast<int64_t>(rng() % 12);
      out[r].stop_after_n = r % 3 == 1 ? 1 + static_cast<int64_t>(rng() % 4) : 0;
    }
    return out;
  }

  // Each row alone through greedy_decode, on a fresh session.
  std::vector<Decoded> one_row(const std::vector<RowSpec>& specs, int threads = 1) const {
    std::vector<Decoded> out(specs.size());
    for (size_t r = 0; r < specs.size(); ++r) {
      Session session(*model_, threads);
      Decoded& d = out[r];
      d.tokens = greedy_decode(session, specs[r].prompt, specs[r].budget, stop_rule(specs[r]),
                               [&](size_t, std::span<const float> l) { d.logits.emplace_back(l.begin(), l.end()); });
    }
    return out;
  }

  std::vector<Decoded> batched(RecordingSession& session, const std::vector<RowSpec>& specs, int64_t budget) const {
    std::vector<DecodeRow> decode;
    for (const RowSpec& spec : specs) decode.push_back({spec.prompt, spec.budget, stop_rule(spec)});
    std::vector<Decoded> out(specs.size());
    const std::vector<std::vector<int32_t>> tokens = greedy_decode_batched(
        session, decode, budget, [&](size_t r, std::span<const float> l) { out[r].logits.emplace_back(l.begin(), l.end()); });
    for (size_t r = 0; r < specs.size(); ++r) out[r].tokens = tokens[r];
    EXPECT_EQ(session.n_cached(), 0) << "the cache is left empty";
    return out;
  }
  std::vector<Decoded> batched(const std::vector<RowSpec>& specs, int64_t budget, int threads = 1) const {
    RecordingSession session(*model_, threads);
    return batched(session, specs, budget);
  }

  static void expect_same_bytes(const std::vector<Decoded>& got, const std::vector<Decoded>& want,
                                const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t r = 0; r < got.size(); ++r) {
      EXPECT_EQ(got[r].tokens, want[r].tokens) << what << ": row " << r;
      ASSERT_EQ(got[r].logits.size(), want[r].logits.size()) << what << ": row " << r << " logit rows";
      for (size_t k = 0; k < got[r].logits.size(); ++k) {
        ASSERT_EQ(got[r].logits[k].size(), want[r].logits[k].size());
        EXPECT_EQ(std::memcmp(got[r].logits[k].data(), want[r].logits[k].data(), got[r].logits[k].size() * sizeof(float)), 0)
            << what << ": row " << r << ", token " << k << " chosen from other logits";
      }
    }
  }

  static int64_t region(const RowSpec& spec) { return static_cast<int64_t>(spec.prompt.size()) + spec.budget; }

  std::filesystem::path dir_;
  std::unique_ptr<Model> model_;
};

TEST_P(BatchedDecode, RowsDecodeToTheirOneRowBytes) {
  const std::vector<RowSpec> specs = rows(9, 7);
  const std::vector<Decoded> want = one_row(specs);
  // Guards against a degenerate reference: rows stop at different lengths, some by their rule.
  std::set<size_t> lengths;
  for (const Decoded& d : want) lengths.insert(d.tokens.size());
  ASSERT_GT(lengths.size(), 2u);

  for (size_t r = 0; r < specs.size(); ++r)
    expect_same_bytes(batched({specs[r]}, 1 << 20), {want[r]}, "row " + std::to_string(r) + " alone");
  expect_same_bytes(batched(specs, 1 << 20), want, "all rows at once");
  std::vector<RowSpec> reversed(specs.rbegin(), specs.rend());
  std::vector<Decoded> reversed_want(want.rbegin(), want.rend());
  expect_same_bytes(batched(reversed, 1 << 20), reversed_want, "all rows, reversed");
}

TEST_P(BatchedDecode, RowsJoiningMidDecodeUnderATightBudgetKeepTheirBytes) {
  const std::vector<RowSpec> specs = rows(12, 11);
  const std::vector<Decoded> want = one_row(specs);
  int64_t largest = 0, total = 0;
  for (const RowSpec& spec : specs) {
    largest = std::max(largest, region(spec));
    total += region(spec);
  }
  ASSERT_GT(total / 3, largest + 17);
  for (const int64_t budget : {largest, largest + 17, total / 3}) {
    RecordingSession session(*model_, 1);
    expect_same_bytes(batched(session, specs, budget), want, "budget " + std::to_string(budget));
    if (budget > largest) {  // room for two rows at least
      EXPECT_GT(session.mixed_calls, 0) << "budget " << budget << ": rows joined while others decoded";
    }
    EXPECT_LE(session.max_offset, budget) << "the regions in flight stay within the budget";
  }
  // A budget below a row's region: every row decodes alone, still the same bytes.
  expect_same_bytes(batched(specs, 4), want, "budget below every row");
}

TEST_P(BatchedDecode, CompactingTheKeySpaceKeepsTheBytes) {
  // A (region 30) stops after 2 tokens, B (40) and C (50) decode to their budgets; with a
  // budget of 100, C waits for A, and then neither A's freed gap nor the space after B holds
  // it: B's keys slide down to 0 and C goes after them.
  std::vector<RowSpec> specs = rows(3, 5);
  const int64_t prompts[3] = {20, 30, 40};
  for (size_t r = 0; r < 3; ++r) {
    specs[r].prompt.resize(static_cast<size_t>(prompts[r]), 7);
    specs[r].budget = 10;
    specs[r].stop_after_n = r == 0 ? 2 : 0;
  }
  const std::vector<Decoded> want = one_row(specs);
  RecordingSession session(*model_, 1);
  expect_same_bytes(batched(session, specs, 100), want, "with compaction");
  if (want[1].tokens.size() > 2) {
    EXPECT_GT(session.compactions, 0) << "B was still decoding when C joined";
  }
}

TEST_P(BatchedDecode, ThreadCountsDoNotChangeTheBytes) {
  const std::vector<RowSpec> specs = rows(6, 3);
  const std::vector<Decoded> want = one_row(specs, 1);
  expect_same_bytes(one_row(specs, 2), want, "one row, 2 threads");
  for (const int threads : {1, 2, 3}) expect_same_bytes(batched(specs, 1 << 20, threads), want, "threads " + std::to_string(threads));
}

TEST_P(BatchedDecode, StopsAtTheModelsEos) {
  // The model's EOS made a token row 0 generates third: row 0 stops before it (not kept),
  // other rows wherever they meet it, as one-row decoding does.
  std::vector<RowSpec> specs = rows(5, 21);
  for (RowSpec& spec : specs) spec.budget = 12, spec.stop_after_n = 0;
  const std::vector<Decoded> before = one_row(specs);
  ASSERT_GE(before[0].tokens.size(), 3u);
  const int32_t eos = before[0].tokens[2];
  nlohmann::json config = nlohmann::json::parse(std::ifstream(dir_ / "config.json"));
  config["eos_token_id"] = eos;
  std::ofstream(dir_ / "config.json") << config.dump();
  model_ = Model::load(dir_, GetParam().storage);
  const std::vector<Decoded> want = one_row(specs);
  ASSERT_LT(want[0].tokens.size(), 3u);
  expect_same_bytes(batched(specs, 1 << 20), want, "with EOS");
}

TEST_P(BatchedDecode, RowsWithNothingToDecodeRunNothing) {
  std::vector<RowSpec> specs = rows(3, 9);
  specs[1].budget = 0;
  const std::vector<Decoded> want = one_row(specs);
  EXPECT_TRUE(want[1].tokens.empty());
  expect_same_bytes(batched(specs, 1 << 20), want, "a row of budget 0");
  specs[2].prompt.clear();
  EXPECT_THROW(batched(specs, 1 << 20), Error) << "an empty prompt is refused, as one-row decoding refuses it";
}

INSTANTIATE_TEST_SUITE_P(Variants, BatchedDecode,
                         ::testing::Values(Variant{"qwen3", DType::F32}, Variant{"llama", DType::BF16},
                                           Variant{"qwen2", DType::F32, WeightStorage::Q8}),
                         variant_name);

}  // namespace
}  // namespace sift
