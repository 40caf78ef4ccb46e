#pragma once
// The synth tests' oracle of what a profile text states: finds every catalog surface form
// (name, alias, job title) matched as a whole token sequence with the same characters
// between its tokens (so "Visual Studio · Code Review" is not "Visual Studio Code"),
// case-insensitively, leftmost-longest and non-overlapping: "Spark AR" is a mention of
// Spark AR, not of Apache Spark ("Spark"), and "JavaScript" never mentions Java. The tests
// use it to check that a profile's text says exactly what its evidence records claim,
// nothing more.
#include <algorithm>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "retrieval/text_tokens.h"
#include "synth/catalog.h"

namespace sift::synth {

struct Mention {
  int qualification;
  size_t first_token;
  size_t n_tokens;
};

class MentionScanner {
 public:
  explicit MentionScanner(const Catalog& catalog) {
    for (int q = 0; q < catalog.size(); ++q)
      for (const std::string& surface : catalog.surface_forms(q)) {
        Form form{{}, {}, q};
        std::vector<retrieval::TokenSpan> spans = retrieval::tokenize_spans(surface);
        for (size_t i = 0; i < spans.size(); ++i) {
          form.tokens.push_back(spans[i].token);
          if (i + 1 < spans.size())
            form.gaps.emplace_back(surface.substr(spans[i].end, spans[i + 1].begin - spans[i].end));
        }
        forms_by_first_token_[form.tokens.front()].push_back(std::move(form));
      }
    for (auto& [first, forms] : forms_by_first_token_)
      std::stable_sort(forms.begin(), forms.end(),
                       [](const Form& a, const Form& b) { return a.tokens.size() > b.tokens.size(); });
  }

  std::vector<Mention> scan(std::string_view text) const {
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

 private:
  struct Form {
    std::vector<std::string> tokens;
    std::vector<std::string> gaps;  // gaps[i]: the characters between tokens i and i+1
    int qualification;
  };
  // First token -> forms starting with it, longest first.
  std::unordered_map<std::string, std::vector<Form>> forms_by_first_token_;
};

}  // namespace sift::synth
