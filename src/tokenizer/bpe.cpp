#include "tokenizer/bpe.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/error.h"
#include "tokenizer/token_ids.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

std::string optional_string(const nlohmann::json& model, const char* key) {
  const auto it = model.find(key);
  return it == model.end() || it->is_null() ? std::string() : it->get<std::string>();
}

// A symbol of a word being merged: a token id covering `n_bytes` input bytes, linked to
// its neighbours. A symbol merged into its left neighbour has n_bytes == 0.
struct Symbol {
  int32_t id;
  int32_t prev, next;
  uint32_t n_bytes;
};

// A candidate merge in the priority queue: lowest rank first, then leftmost position.
struct QueuedMerge {
  uint32_t rank;
  int32_t pos;
  int32_t new_id;
  bool operator>(const QueuedMerge& other) const {
    return rank != other.rank ? rank > other.rank : pos > other.pos;
  }
};

}  // namespace

BpeModel::BpeModel(const nlohmann::json& model, const std::string& where) {
  if (model.contains("dropout") && !model["dropout"].is_null() && model["dropout"].get<double>() != 0.0) {
    fail("{}: BPE dropout is not supported (it makes tokenization random)", where);
  }
  for (const auto& [token, id] : model.at("vocab").items()) {
    // (the name is formatted only for a bad id, which token_id_from_json reports)
    const int32_t id_value = is_token_id(id) ? id.get<int32_t>()
                                             : token_id_from_json(id, fmt::format("{}: vocab[\"{}\"]", where, token));
    vocab_[token] = id_value;
    tokens_by_id_[id_value] = token;
  }
  continuing_subword_prefix_ = optional_string(model, "continuing_subword_prefix");
  end_of_word_suffix_ = optional_string(model, "end_of_word_suffix");
  fuse_unk_ = model.value("fuse_unk", false);
  byte_fallback_ = model.value("byte_fallback", false);
  ignore_merges_ = model.value("ignore_merges", false);
  const std::string unk = optional_string(model, "unk_token");
  if (!unk.empty()) {
    const auto it = vocab_.find(unk);
    if (it == vocab_.end()) fail("{}: unk_token \"{}\" is not in the vocabulary", where, unk);
    unk_id_ = it->second;
  }
  byte_fallback_ids_.assign(256, -1);
  for (int b = 0; b < 256; ++b) {
    const auto it = vocab_.find(fmt::format("<0x{:02X}>", b));
    if (it != vocab_.end()) byte_fallback_ids_[b] = it->second;
  }
  load_merges(model.at("merges"), where);
}

// Merges come as "a b" strings or ["a", "b"] pairs; merge i has rank i. The merged token is
// a + b without b's continuing_subword_prefix. A later duplicate pair overrides an earlier one.
void BpeModel::load_merges(const nlohmann::json& merges, const std::string& where) {
  const auto id_of = [&](const std::string& token, size_t rank) {
    const auto it = vocab_.find(token);
    if (it == vocab_.end()) fail("{}: merges[{}] uses \"{}\", which is not in the vocabulary", where, rank, token);
    return it->second;
  };
  merges_.reserve(merges.size());
  for (size_t rank = 0; rank < merges.size(); ++rank) {
    const auto& merge = merges[rank];
    std::string left, right;
    if (merge.is_string()) {
      const std::string text = merge.get<std::string>();
      const size_t space = text.find(' ');
      if (space == std::string::npos || text.find(' ', space + 1) != std::string::npos) {
        fail("{}: merges[{}] \"{}\" is not two tokens separated by one space", where, rank, text);
      }
      left = text.substr(0, space);
      right = text.substr(space + 1);
    } else if (merge.is_array() && merge.size() == 2 && merge[0].is_string() && merge[1].is_string()) {
      left = merge[0].get<std::string>();
      right = merge[1].get<std::string>();
    } else {
      fail("{}: merges[{}] must be \"a b\" or [\"a\", \"b\"], got {}", where, rank, merge.dump());
    }
    const size_t prefix_length = std::min(continuing_subword_prefix_.size(), right.size());
    const int32_t new_id = id_of(left + right.substr(prefix_length), rank);
    merges_[pair_key(id_of(left, rank), id_of(right, rank))] = {static_cast<uint32_t>(rank), new_id};
  }
}

void BpeModel::tokenize(std::string_view word, std::vector<int32_t>& ids) const {
  if (word.empty()) return;
  if (ignore_merges_) {  // a pre-token that is a whole vocabulary entry is taken as it is
    const auto it = vocab_.find(word);
    if (it != vocab_.end()) {
      ids.push_back(it->second);
      return;
    }
  }
  if (cache_.lookup(word, ids)) return;
  const size_t first = ids.size();
  merge_word(word, ids);
  cache_.insert(word, ids.data() + first, ids.size() - first);
}

void BpeModel::merge_word(std::string_view word, std::vector<int32_t>& ids) const {
  // 1. One symbol per character (HF merge_word).
  std::vector<Symbol> symbols;
  symbols.reserve(word.size());
  const auto add_symbol = [&](int32_t id, uint32_t n_bytes) {
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, index - 1, index + 1, n_bytes});
  };
  // An unk symbol not added yet, so that fuse_unk can extend it: bytes 0 means none.
  uint32_t pending_unk_bytes = 0;
  const auto flush_unk = [&] {
    if (pending_unk_bytes > 0) add_symbol(*unk_id_, pending_unk_bytes);
    pending_unk_bytes = 0;
  };
  std::string symbol_text;
  size_t pos = 0;
  while (pos < word.size()) {
    const size_t start = pos;
    pos += std::max<size_t>(1, utf8::sequence_length(word, pos));
    const auto n_bytes = static_cast<uint32_t>(pos - start);
    symbol_text.assign(start == 0 ? std::string_view() : continuing_subword_prefix_);
    symbol_text.append(word.substr(start, n_bytes));
    if (pos == word.size()) symbol_text.append(end_of_word_suffix_);

    if (const auto it = vocab_.find(symbol_text); it != vocab_.end()) {
      flush_unk();
      add_symbol(it->second, n_bytes);
      continue;
    }
    if (byte_fallback_ && std::all_of(symbol_text.begin(), symbol_text.end(), [&](char b) {
          return byte_fallback_ids_[static_cast<unsigned char>(b)] >= 0;
        })) {
      for (const char b : symbol_text) add_symbol(byte_fallback_ids_[static_cast<unsigned char>(b)], 1);
      continue;
    }
    if (!unk_id_) continue;  // no unk token: the character is dropped, as in HF
    if (!fuse_unk_) flush_unk();
    pending_unk_bytes += n_bytes;
  }
  flush_unk();
  if (symbols.empty()) return;
  symbols.back().next = -1;

  // 2. Merge the lowest-rank adjacent pair until none is left (HF Word::merge_all). A queued
  // merge is stale if its left symbol was absorbed or its pair no longer yields new_id.
  const auto find_merge = [&](int32_t left, int32_t right) -> const MergeTarget* {
    const auto it = merges_.find(pair_key(symbols[left].id, symbols[right].id));
    return it == merges_.end() ? nullptr : &it->second;
  };
  std::vector<QueuedMerge> queue;
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols.size()); ++i) {
    if (const auto* merge = find_merge(i, i + 1)) queue.push_back({merge->rank, i, merge->new_id});
  }
  const auto by_priority = std::greater<QueuedMerge>();
  std::make_heap(queue.begin(), queue.end(), by_priority);
  while (!queue.empty()) {
    std::pop_heap(queue.begin(), queue.end(), by_priority);
    const QueuedMerge top = queue.back();
    queue.pop_back();
    Symbol& left = symbols[top.pos];
    if (left.n_bytes == 0 || left.next == -1) continue;
    const int32_t right_pos = left.next;
    const auto* current = find_merge(top.pos, right_pos);
    if (!current || current->new_id != top.new_id) continue;

    Symbol& right = symbols[right_pos];
    left.id = top.new_id;
    left.n_bytes += right.n_bytes;
    left.next = right.next;
    right.n_bytes = 0;
    if (left.next != -1) symbols[left.next].prev = top.pos;

    if (left.prev >= 0) {
      if (const auto* merge = find_merge(left.prev, top.pos)) {
        queue.push_back({merge->rank, left.prev, merge->new_id});
        std::push_heap(queue.begin(), queue.end(), by_priority);
      }
    }
    if (left.next != -1) {
      if (const auto* merge = find_merge(top.pos, left.next)) {
        queue.push_back({merge->rank, top.pos, merge->new_id});
        std::push_heap(queue.begin(), queue.end(), by_priority);
      }
    }
  }
  for (const auto& symbol : symbols)
    if (symbol.n_bytes != 0) ids.push_back(symbol.id);
}

std::optional<int32_t> BpeModel::token_to_id(std::string_view token) const {
  const auto it = vocab_.find(token);
  if (it == vocab_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::string> BpeModel::id_to_token(int32_t id) const {
  const auto it = tokens_by_id_.find(id);
  if (it == tokens_by_id_.end()) return std::nullopt;
  return it->second;
}

}  // namespace sift
