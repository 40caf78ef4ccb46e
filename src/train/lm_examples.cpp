#include "train/lm_examples.h"

#include <string>

#include "core/error.h"
#include "scoring/plan.h"
#include "tokenizer/bpe_corpus.h"

namespace sift::train {
namespace {

constexpr size_t kDocumentsPerBatch = 4096;  // encoded together (encode_batch spreads them over threads)

}  // namespace

int32_t document_separator(const Tokenizer& tokenizer, int64_t config_eos_token_id) {
  if (const std::optional<int32_t> id = tokenizer.token_to_id("<|endoftext|>")) return *id;
  if (config_eos_token_id >= 0) return static_cast<int32_t>(config_eos_token_id);
  fail(
      "language modelling needs an end-of-document token: the tokenizer has no \"<|endoftext|>\" and config.json no "
      "eos_token_id");
}

TokenStream read_token_stream(const std::filesystem::path& corpus, const Tokenizer& tokenizer, int32_t eos,
                              int64_t max_line_bytes) {
  TokenStream stream;
  const std::vector<int32_t> prefix = tokenizer.prefix_special_ids();
  EncodeOptions plain;
  plain.add_special_tokens = false;  // the prefix is added here, once per document
  std::vector<std::string> documents;
  const auto flush = [&] {
    for (const std::vector<int32_t>& ids : tokenizer.encode_batch(documents, plain)) {
      stream.ids.insert(stream.ids.end(), prefix.begin(), prefix.end());
      stream.ids.insert(stream.ids.end(), ids.begin(), ids.end());
      stream.ids.push_back(eos);
    }
    stream.n_documents += static_cast<int64_t>(documents.size());
    documents.clear();
  };
  read_corpus_file(corpus.string(), max_line_bytes, [&](std::string_view document) {
    documents.emplace_back(document);
    if (documents.size() == kDocumentsPerBatch) flush();
  });
  flush();
  return stream;
}

ExampleSet lm_examples(const std::vector<int32_t>& stream, int64_t sequence_tokens) {
  if (sequence_tokens < 1) fail("language modelling: sequences of {} tokens", sequence_tokens);
  const auto n = static_cast<int64_t>(stream.size());
  if (n < 2) fail("language modelling: the text holds {} token(s), nothing to predict", n);
  ExampleSet set;
  set.objective = "lm";
  set.label_unit = "target tokens";
  for (int64_t begin = 0; begin < n - 1; begin += sequence_tokens) {
    const auto length = static_cast<int32_t>(std::min(sequence_tokens, n - 1 - begin));
    set.sizes.push_back({length, length});
  }
  set.layout = [&stream, sequence_tokens](int32_t example) {
    const int64_t begin = example * sequence_tokens;
    const auto length =
        static_cast<int64_t>(std::min<int64_t>(sequence_tokens, static_cast<int64_t>(stream.size()) - 1 - begin));
    ForwardCall call;
    append_run(call, std::span<const int32_t>(stream).subspan(static_cast<size_t>(begin), static_cast<size_t>(length)),
               0, {});  // one causal sequence at positions 0 .. T_k - 1
    SequenceLayout s;
    s.ids = std::move(call.ids);
    s.positions = std::move(call.positions);
    s.segments = std::move(call.segments);
    for (int64_t t = 0; t < length; ++t) {
      s.readout.push_back(static_cast<int32_t>(t));  // token t predicts token t + 1
      s.targets.push_back(stream[static_cast<size_t>(begin + t + 1)]);
    }
    return s;
  };
  return set;
}

}  // namespace sift::train
