#pragma once
// Byte-level BPE training, like Hugging Face's BpeTrainer behind a ByteLevel pre-tokenizer,
// writing a tokenizer.json that HF tokenizers and sift's Tokenizer both load (with the same
// ids), so a small labeler need not carry a 151k-token embedding.
//
//   1. Each document is split into words by Qwen2/Qwen3's pre-tokenizer regex
//      (kPreTokenizerRegex: contractions, letters with one leading non-letter, single
//      digits, punctuation runs, whitespace); with prefix_space, a word that does not start
//      with a space gets one (HF ByteLevel add_prefix_space, which acts on every piece after
//      the Split). Words are counted.
//   2. Every word starts as its bytes; the alphabet is all 256 bytes, ids 0..255 in byte
//      order, whether or not the corpus has them.
//   3. Words of `single_token_words` (e.g. the answer tokens YES / NO of sift.json) are made
//      one token first: their pieces under the merges so far are merged left to right.
//      These merges rank before all others, so the word stays one token (each step has
//      exactly one applicable merge, of lower rank than every later one).
//   4. Then, repeatedly, the adjacent pair with the highest count over the corpus
//      (sum over words of occurrences x word count) is merged everywhere. Ties go to the
//      pair whose left token's bytes are lexicographically smallest, then the right's.
//      A merge whose result already is a token (another pair made the same bytes) reuses its
//      id, as HF does, and does not grow the vocabulary.
//   5. Until the vocabulary has vocab_size tokens: BPE tokens plus `special_tokens`, which
//      are added tokens (special, never split) with the ids after the BPE vocabulary.
// The result is a pure function of the documents' words and counts and the options: the
// same corpus gives the same file, byte for byte.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sift {

class PreTokenizer;

// The Qwen2 / Qwen3 tokenizer.json Split regex.
inline constexpr std::string_view kPreTokenizerRegex =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

struct BpeTrainerOptions {
  int64_t vocab_size = 0;                       // V, bytes + merged tokens + special tokens
  std::vector<std::string> special_tokens;      // added tokens, ids V - n_special .. V - 1
  std::vector<std::string> single_token_words;  // texts that must encode to exactly one token
  // Every word starts with a space, so a word is the same token at the start of a text (a
  // labeler's item, encoded on its own) as inside one ("Apache" and " Apache" -> "ĠApache").
  bool prefix_space = false;
};

struct TrainedBpe {
  std::vector<std::string> tokens;                  // bytes of each BPE token, by id; 0..255 single bytes
  std::vector<std::pair<int32_t, int32_t>> merges;  // (left id, right id), rank order
  std::vector<std::string> special_tokens;          // id = tokens.size() + index
  bool prefix_space = false;                        // ByteLevel add_prefix_space of the file

  int64_t vocab_size() const { return static_cast<int64_t>(tokens.size() + special_tokens.size()); }
};

class BpeTrainer {
 public:
  // Error if V cannot hold the 256 bytes and the special tokens, or for an empty or
  // duplicate special token.
  explicit BpeTrainer(BpeTrainerOptions options);
  ~BpeTrainer();

  // Pre-tokenizes one document and counts its words; Error on invalid UTF-8.
  void add_document(std::string_view text);

  int64_t n_documents() const { return n_documents_; }
  int64_t n_words() const { return n_words_; }
  int64_t n_distinct_words() const { return static_cast<int64_t>(word_counts_.size()); }

  // Error when the corpus runs out of pairs before the vocabulary is full, or a single-token
  // word splits into several pre-tokenized words.
  TrainedBpe train() const;

 private:
  std::vector<std::string> words_of(std::string_view text) const;  // step 1 on one text

  BpeTrainerOptions options_;
  std::unique_ptr<PreTokenizer> pre_tokenizer_;
  std::unordered_map<std::string, int64_t> word_counts_;
  int64_t n_documents_ = 0;
  int64_t n_words_ = 0;
};

// The pre_tokenizer of the written file: Sequence[Split(kPreTokenizerRegex, Isolated),
// ByteLevel(add_prefix_space, use_regex false)], as Qwen's tokenizer.json (which has no
// prefix space).
nlohmann::ordered_json bpe_pre_tokenizer_json(bool add_prefix_space);
// A ByteLevel step (pre-tokenizer, post-processor or decoder) without its regex.
nlohmann::ordered_json byte_level_json(bool add_prefix_space);

// tokenizer.json: no normalizer, that pre-tokenizer, BPE model (vocab in id order, merges as
// [left, right] pairs of byte-level strings), ByteLevel post-processor and decoder, the
// special tokens as added tokens with special: true.
nlohmann::ordered_json trained_bpe_to_tokenizer_json(const TrainedBpe& bpe);

}  // namespace sift
