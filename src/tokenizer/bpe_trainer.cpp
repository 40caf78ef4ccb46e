#include "tokenizer/bpe_trainer.h"

#include <algorithm>
#include <limits>
#include <queue>
#include <set>

#include "core/error.h"
#include "tokenizer/pre_tokenizers.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

uint64_t pair_key(int32_t left, int32_t right) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
}
int32_t key_left(uint64_t key) { return static_cast<int32_t>(key >> 32); }
int32_t key_right(uint64_t key) { return static_cast<int32_t>(key & 0xffffffffu); }

// The vocabulary and merge list as they grow.
struct Vocabulary {
  struct Merge {
    uint32_t rank;
    int32_t new_id;
  };
  std::vector<std::string> tokens;  // bytes of each token, by id
  std::unordered_map<std::string, int32_t> ids;
  std::vector<std::pair<int32_t, int32_t>> merges;
  std::unordered_map<uint64_t, Merge> merge_of;

  Vocabulary() {
    for (int b = 0; b < 256; ++b) {
      tokens.emplace_back(1, static_cast<char>(b));
      ids.emplace(tokens.back(), b);
    }
  }

  // Records the merge left + right (if new) and returns the id of the merged token, which
  // is a new id unless those bytes already are a token.
  int32_t add_merge(int32_t left, int32_t right) {
    if (auto it = merge_of.find(pair_key(left, right)); it != merge_of.end()) return it->second.new_id;
    std::string bytes = tokens[left] + tokens[right];
    auto [it, inserted] = ids.emplace(bytes, static_cast<int32_t>(tokens.size()));
    if (inserted) tokens.push_back(std::move(bytes));
    merge_of.emplace(pair_key(left, right), Merge{static_cast<uint32_t>(merges.size()), it->second});
    merges.emplace_back(left, right);
    return it->second;
  }

  // How the BPE model encodes one pre-tokenized word with the merges so far: the adjacent
  // pair of lowest rank is merged, leftmost first, until no pair has a merge (HF word.rs).
  std::vector<int32_t> encode_word(std::string_view word) const {
    std::vector<int32_t> symbols;
    for (char byte : word) symbols.push_back(static_cast<unsigned char>(byte));
    for (;;) {
      uint32_t best_rank = std::numeric_limits<uint32_t>::max();
      size_t best_at = 0;
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        auto it = merge_of.find(pair_key(symbols[i], symbols[i + 1]));
        if (it != merge_of.end() && it->second.rank < best_rank) {
          best_rank = it->second.rank;
          best_at = i;
        }
      }
      if (best_rank == std::numeric_limits<uint32_t>::max()) return symbols;
      symbols[best_at] = merge_of.at(pair_key(symbols[best_at], symbols[best_at + 1])).new_id;
      symbols.erase(symbols.begin() + static_cast<std::ptrdiff_t>(best_at) + 1);
    }
  }
};

// The corpus as distinct words (symbol sequences) with counts, and the count of every
// adjacent pair: pair_counts[(a, b)] = sum over words w of count(w) x occurrences of a b in w.
class WordPairs {
 public:
  explicit WordPairs(const std::unordered_map<std::string, int64_t>& word_counts) {
    std::vector<const std::pair<const std::string, int64_t>*> sorted;
    for (const auto& entry : word_counts) sorted.push_back(&entry);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->first < b->first; });
    for (const auto* entry : sorted) {
      const uint32_t w = static_cast<uint32_t>(words_.size());
      std::vector<int32_t>& symbols = words_.emplace_back();
      for (char byte : entry->first) symbols.push_back(static_cast<unsigned char>(byte));
      counts_.push_back(entry->second);
      for (size_t i = 0; i + 1 < symbols.size(); ++i) {
        const uint64_t key = pair_key(symbols[i], symbols[i + 1]);
        pair_counts_[key] += entry->second;
        holders_[key].push_back(w);
      }
    }
  }

  const std::unordered_map<uint64_t, int64_t>& pair_counts() const { return pair_counts_; }
  int64_t count(uint64_t key) const {
    auto it = pair_counts_.find(key);
    return it == pair_counts_.end() ? 0 : it->second;
  }

  // Replaces every occurrence of left right (leftmost first, non-overlapping) by new_id in
  // the words holding it, updating the pair counts; returns the pairs whose count rose.
  // For an occurrence between neighbours x and y:  x a b y  ->  x N y
  //   (x, a) -= c, (x, N) += c, (b, y) -= c, (N, y) += c   (c = the word's count)
  // where x is the symbol already written, so runs like "a b a b" net out correctly.
  std::vector<uint64_t> merge(int32_t left, int32_t right, int32_t new_id) {
    const uint64_t merged = pair_key(left, right);
    auto found = holders_.find(merged);
    if (found == holders_.end()) return {};
    std::vector<uint32_t> holders = std::move(found->second);
    holders_.erase(found);
    std::sort(holders.begin(), holders.end());
    holders.erase(std::unique(holders.begin(), holders.end()), holders.end());

    std::unordered_map<uint64_t, int64_t> changes;
    auto gain = [&](uint64_t key, int64_t count, uint32_t w) {
      changes[key] += count;
      holders_[key].push_back(w);
    };
    std::vector<int32_t> out;
    for (uint32_t w : holders) {
      std::vector<int32_t>& symbols = words_[w];
      const int64_t c = counts_[w];
      out.clear();
      for (size_t i = 0; i < symbols.size();) {
        if (i + 1 < symbols.size() && symbols[i] == left && symbols[i + 1] == right) {
          if (!out.empty()) {
            changes[pair_key(out.back(), left)] -= c;
            gain(pair_key(out.back(), new_id), c, w);
          }
          if (i + 2 < symbols.size()) {
            changes[pair_key(right, symbols[i + 2])] -= c;
            gain(pair_key(new_id, symbols[i + 2]), c, w);
          }
          out.push_back(new_id);
          i += 2;
        } else {
          out.push_back(symbols[i++]);
        }
      }
      symbols.swap(out);
    }

    std::vector<uint64_t> rose;
    for (const auto& [key, change] : changes) {
      if (key == merged || change == 0) continue;
      int64_t& count = pair_counts_[key];
      count += change;
      if (change > 0) rose.push_back(key);
      if (count <= 0) pair_counts_.erase(key);
    }
    pair_counts_.erase(merged);  // every occurrence is merged now
    return rose;
  }

 private:
  std::vector<std::vector<int32_t>> words_;
  std::vector<int64_t> counts_;
  std::unordered_map<uint64_t, int64_t> pair_counts_;
  std::unordered_map<uint64_t, std::vector<uint32_t>> holders_;  // words that (may) hold a pair
};

// Max-heap order of candidate merges: higher count first, then the lexicographically
// smaller (left bytes, right bytes). Entries go stale as counts fall; they are checked
// against the live count when they reach the top (counts only fall for queued pairs, and
// every pair whose count rises is pushed again, so the top with a live count is the best).
struct Candidate {
  int64_t count;
  int32_t left, right;
};

class CandidateOrder {
 public:
  explicit CandidateOrder(const std::vector<std::string>& tokens) : tokens_(&tokens) {}
  bool operator()(const Candidate& a, const Candidate& b) const {  // true: a after b
    if (a.count != b.count) return a.count < b.count;
    const std::string& a_left = (*tokens_)[a.left];
    const std::string& b_left = (*tokens_)[b.left];
    if (a_left != b_left) return a_left > b_left;
    return (*tokens_)[a.right] > (*tokens_)[b.right];
  }

 private:
  const std::vector<std::string>* tokens_;
};

nlohmann::ordered_json split_step_json() {
  return {{"type", "Split"},
          {"pattern", {{"Regex", std::string(kPreTokenizerRegex)}}},
          {"behavior", "Isolated"},
          {"invert", false}};
}

}  // namespace

BpeTrainer::BpeTrainer(BpeTrainerOptions options) : options_(std::move(options)) {
  const int64_t n_special = static_cast<int64_t>(options_.special_tokens.size());
  if (options_.vocab_size < 256 + n_special)
    fail("--vocab-size {} is too small: it must hold the 256 byte tokens and the {} special tokens ({} at least)",
         options_.vocab_size, n_special, 256 + n_special);
  std::set<std::string> seen;
  for (const std::string& special : options_.special_tokens) {
    if (special.empty()) fail("a special token must not be empty");
    utf8::validate(special);
    if (!seen.insert(special).second) fail("special token \"{}\" is given twice", special);
  }
  for (const std::string& word : options_.single_token_words) {
    if (word.empty()) fail("a single-token word must not be empty");
    utf8::validate(word);
  }
  // The Split step only: words stay raw bytes (ByteLevel without its regex only renames bytes).
  pre_tokenizer_ = make_pre_tokenizer(nlohmann::json::parse(split_step_json().dump()), "bpe trainer pre-tokenizer");
}

BpeTrainer::~BpeTrainer() = default;

std::vector<std::string> BpeTrainer::words_of(std::string_view text) const {
  std::vector<PreToken> pieces{{std::string(text), 0}};
  pre_tokenizer_->pre_tokenize(pieces);
  std::vector<std::string> words;
  words.reserve(pieces.size());
  for (PreToken& piece : pieces) {
    if (options_.prefix_space && (piece.text.empty() || piece.text.front() != ' ')) piece.text.insert(0, 1, ' ');
    words.push_back(std::move(piece.text));
  }
  return words;
}

void BpeTrainer::add_document(std::string_view text) {
  utf8::validate(text);
  std::vector<std::string> words = words_of(text);
  for (std::string& word : words) ++word_counts_[std::move(word)];
  n_words_ += static_cast<int64_t>(words.size());
  ++n_documents_;
}

TrainedBpe BpeTrainer::train() const {
  const size_t bpe_size = static_cast<size_t>(options_.vocab_size) - options_.special_tokens.size();
  Vocabulary vocabulary;
  WordPairs corpus(word_counts_);

  // Single-token words first: their merges rank before every frequency merge.
  std::vector<std::string> single_words;  // as the encoder sees them (with the prefix space)
  for (const std::string& word : options_.single_token_words) {
    std::vector<std::string> pieces = words_of(word);
    if (pieces.size() != 1)
      fail("single-token word \"{}\" is split by the pre-tokenizer into {} words; it can never be one token", word,
           pieces.size());
    single_words.push_back(pieces[0]);
    std::vector<int32_t> symbols = vocabulary.encode_word(pieces[0]);
    while (symbols.size() > 1) {
      const int32_t merged = vocabulary.add_merge(symbols[0], symbols[1]);
      corpus.merge(symbols[0], symbols[1], merged);
      symbols.erase(symbols.begin());
      symbols[0] = merged;
    }
  }
  if (vocabulary.tokens.size() > bpe_size)
    fail("--vocab-size {} is too small for the 256 bytes, the {} special tokens and the single-token words ({} "
         "tokens)",
         options_.vocab_size, options_.special_tokens.size(),
         vocabulary.tokens.size() + options_.special_tokens.size());

  std::priority_queue<Candidate, std::vector<Candidate>, CandidateOrder> queue{CandidateOrder(vocabulary.tokens)};
  for (const auto& [key, count] : corpus.pair_counts()) queue.push({count, key_left(key), key_right(key)});

  while (vocabulary.tokens.size() < bpe_size) {
    if (queue.empty())
      fail("the corpus runs out of pairs to merge at {} tokens ({} with the special tokens), short of --vocab-size "
           "{}: give more text or a smaller vocabulary",
           vocabulary.tokens.size(), vocabulary.tokens.size() + options_.special_tokens.size(), options_.vocab_size);
    const Candidate top = queue.top();
    queue.pop();
    const int64_t live = corpus.count(pair_key(top.left, top.right));
    if (live != top.count) {  // stale: requeue with the live count
      if (live > 0) queue.push({live, top.left, top.right});
      continue;
    }
    const int32_t merged = vocabulary.add_merge(top.left, top.right);
    for (uint64_t key : corpus.merge(top.left, top.right, merged))
      if (const int64_t count = corpus.count(key); count > 0) queue.push({count, key_left(key), key_right(key)});
  }

  for (const std::string& word : single_words)
    if (vocabulary.encode_word(word).size() != 1)
      fail("internal error: single-token word \"{}\" does not encode to one token", word);

  TrainedBpe bpe;
  bpe.tokens = std::move(vocabulary.tokens);
  bpe.merges = std::move(vocabulary.merges);
  bpe.special_tokens = options_.special_tokens;
  bpe.prefix_space = options_.prefix_space;
  return bpe;
}

nlohmann::ordered_json byte_level_json(bool add_prefix_space) {
  return {{"type", "ByteLevel"}, {"add_prefix_space", add_prefix_space}, {"trim_offsets", false}, {"use_regex", false}};
}

nlohmann::ordered_json bpe_pre_tokenizer_json(bool add_prefix_space) {
  return {{"type", "Sequence"}, {"pretokenizers", {split_step_json(), byte_level_json(add_prefix_space)}}};
}

}  // namespace sift
