#include "synth/mention_scan.h"

#include <algorithm>

#include "synth/catalog.h"
#include "retrieval/text_tokens.h"

namespace sift::synth {

MentionScanner::MentionScanner(const Catalog& catalog) {
  for (int q = 0; q < catalog.size(); ++q)
    for (const std::string& surface : catalog.surface_forms(q)) {
      Form form{{}, {}, q};
      std::vector<retrieval::TokenSpan> spans = retrieval::tokenize_spans(surface);
      for (size_t i = 0; i < spans.size(); ++i) {
        form.tokens.push_back(spans[i].token);
        if (i + 1 < spans.size()) form.gaps.emplace_back(surface.substr(spans[i].end, spans[i + 1].begin - spans[i].end));
      }
      forms_by_first_token_[form.tokens.front()].push_back(std::move(form));
    }
  for (auto& [first, forms] : forms_by_first_token_)
    std::stable_sort(forms.begin(), forms.end(),
                     [](const Form& a, const Form& b) { return a.tokens.size() > b.tokens.size(); });
}

std::vector<Mention> MentionScanner::scan(std::string_view text) const {
  std::vector<retrieval::TokenSpan> spans = retrieval::tokenize_spans(text);
  auto fits = [&](const Form& form, size_t at) {
    if (at + form.tokens.size() > spans.size()) return false;
    for (size_t k = 0; k < form.tokens.size(); ++k) {
      if (spans[at + k].token != form.tokens[k]) return false;
      if (k + 1 < form.tokens.size()) {
        std::string_view gap = text.substr(spans[at + k].end, spans[at + k + 1].begin - spans[at + k].end);
        if (gap != form.gaps[k]) return false;
      }
    }
    return true;
  };
  std::vector<Mention> mentions;
  size_t i = 0;
  while (i < spans.size()) {
    const Form* match = nullptr;
    auto it = forms_by_first_token_.find(spans[i].token);
    if (it != forms_by_first_token_.end())
      for (const Form& form : it->second)  // longest first: the first fit wins
        if (fits(form, i)) {
          match = &form;
          break;
        }
    if (match) {
      mentions.push_back({match->qualification, i, match->tokens.size()});
      i += match->tokens.size();
    } else {
      ++i;
    }
  }
  return mentions;
}

}  // namespace sift::synth
