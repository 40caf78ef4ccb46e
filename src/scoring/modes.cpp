#include "scoring/modes.h"

#include "core/error.h"

namespace sift {

std::optional<ScoringMode> parse_scoring_mode(std::string_view name) {
  if (name == "mis") return ScoringMode::Mis;
  if (name == "independent") return ScoringMode::Independent;
  if (name == "prefix") return ScoringMode::Prefix;
  if (name == "generate") return ScoringMode::Generate;
  return std::nullopt;
}

std::string_view scoring_mode_name(ScoringMode mode) {
  switch (mode) {
    case ScoringMode::Mis: return "mis";
    case ScoringMode::Independent: return "independent";
    case ScoringMode::Prefix: return "prefix";
    case ScoringMode::Generate: return "generate";
  }
  return "?";
}

std::vector<int64_t> item_lengths(std::span<const TokenIds> items) {
  std::vector<int64_t> lengths;
  lengths.reserve(items.size());
  for (const TokenIds& item : items) lengths.push_back(static_cast<int64_t>(item.size()));
  return lengths;
}

void check_positions_fit(const ModelConfig& config, int64_t query_len, std::span<const TokenIds> items) {
  for (size_t i = 0; i < items.size(); ++i) {
    const int64_t item_len = static_cast<int64_t>(items[i].size());
    if (item_len == 0) fail("item {} has no tokens: the item part must end at an answer position", i);
    if (query_len + item_len > config.max_position_embeddings)
      fail("the query ({} tokens) with item {} ({} tokens) is {} tokens, more than the model's "
           "max_position_embeddings {}",
           query_len, i, item_len, query_len + item_len, config.max_position_embeddings);
  }
}

ItemScores score_items(ScoringMode mode, const Model& model, AnswerTokenIds answer, std::span<const int32_t> query,
                       std::span<const TokenIds> items, int64_t max_request_tokens) {
  switch (mode) {
    case ScoringMode::Mis: return score_multi_item(model, answer, query, items, max_request_tokens);
    case ScoringMode::Independent: return score_independent(model, answer, query, items, max_request_tokens);
    case ScoringMode::Prefix: return score_with_cached_query(model, answer, query, items, max_request_tokens);
    case ScoringMode::Generate: break;
  }
  fail("mode generate produces decisions from text, not token-level scores (use generate_mode.h)");
}

}  // namespace sift
