#include "tokenizer/pre_tokenizers.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/sequence_nesting.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

// Appends the non-empty ranges of `piece` to `out`.
void append_ranges(const PreToken& piece, const std::vector<ByteRange>& ranges, std::vector<PreToken>& out) {
  for (const auto& [start, end] : ranges) {
    if (start == end) continue;
    out.push_back({piece.text.substr(start, end - start), piece.original_start + start});
  }
}

// Applies `split_piece(piece, out)` to every piece.
template <typename SplitPiece>
void split_each(std::vector<PreToken>& pieces, SplitPiece&& split_piece) {
  std::vector<PreToken> out;
  out.reserve(pieces.size() * 2);
  for (const auto& piece : pieces) split_piece(piece, out);
  pieces.swap(out);
}

// Split: splits on a regex or string pattern with one of the five behaviours; `invert`
// swaps what counts as a match (HF pre_tokenizers/split.rs).
class Split final : public PreTokenizer {
 public:
  Split(Pattern pattern, SplitBehavior behavior, bool invert)
      : pattern_(std::move(pattern)), behavior_(behavior), invert_(invert) {}
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& piece, std::vector<PreToken>& out) {
      auto spans = pattern_.find_spans(piece.text);
      if (invert_)
        for (auto& span : spans) span.is_match = !span.is_match;
      append_ranges(piece, split_ranges(spans, behavior_), out);
    });
  }

 private:
  Pattern pattern_;
  SplitBehavior behavior_;
  bool invert_;
};

// ByteLevel: optionally prefixes each piece with a space (unless it starts with one),
// optionally splits it with the GPT-2 pattern (isolated), then rewrites every byte as its
// table character (HF pre_tokenizers/byte_level.rs).
class ByteLevel final : public PreTokenizer {
 public:
  ByteLevel(bool add_prefix_space, bool use_regex) : add_prefix_space_(add_prefix_space) {
    if (use_regex) {
      const nlohmann::json pattern = {
          {"Regex", R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)"}};
      gpt2_pattern_ = std::make_unique<Pattern>(Pattern::from_json(pattern, "ByteLevel"));
    }
  }
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    std::vector<PreToken> out;
    out.reserve(pieces.size());
    for (auto& piece : pieces) {
      if (add_prefix_space_ && piece.text.front() != ' ') piece.text.insert(0, " ");
      if (gpt2_pattern_) {
        append_ranges(piece, split_ranges(gpt2_pattern_->find_spans(piece.text), SplitBehavior::Isolated), out);
      } else {
        out.push_back(std::move(piece));
      }
    }
    for (auto& piece : out) {
      std::string mapped;
      mapped.reserve(piece.text.size() * 2);
      byte_level::encode(piece.text, mapped);
      piece.text = std::move(mapped);
    }
    pieces.swap(out);
  }

 private:
  bool add_prefix_space_;
  std::unique_ptr<Pattern> gpt2_pattern_;
};

// Digits: isolates numeric characters (Nd/Nl/No), each on its own or as runs
// (HF pre_tokenizers/digits.rs).
class Digits final : public PreTokenizer {
 public:
  explicit Digits(bool individual_digits) : individual_digits_(individual_digits) {}
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    const auto behavior = individual_digits_ ? SplitBehavior::Isolated : SplitBehavior::Contiguous;
    split_each(pieces, [&](const PreToken& piece, std::vector<PreToken>& out) {
      append_ranges(piece, split_ranges(find_char_spans(piece.text, unicode::is_numeric), behavior), out);
    });
  }

 private:
  bool individual_digits_;
};

enum class PrependScheme { Always, First, Never };

// Metaspace: spaces become `replacement`; the replacement is prepended when the piece does
// not start with it (always, or only for the piece at the very start of the input: "first");
// then, if `split`, each replacement starts a new piece (HF pre_tokenizers/metaspace.rs).
class Metaspace final : public PreTokenizer {
 public:
  Metaspace(std::string replacement, PrependScheme scheme, bool split)
      : replacement_(std::move(replacement)), scheme_(scheme), split_(split) {
    size_t pos = 0;
    replacement_char_ = utf8::next(replacement_, pos);
  }
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& piece, std::vector<PreToken>& out) {
      PreToken replaced{replace_spaces(piece.text), piece.original_start};
      const bool starts_with_replacement = replaced.text.starts_with(replacement_);
      if (!starts_with_replacement && (scheme_ == PrependScheme::Always ||
                                       (scheme_ == PrependScheme::First && piece.original_start == 0))) {
        replaced.text.insert(0, replacement_);
      }
      if (!split_) {
        if (!replaced.text.empty()) out.push_back(std::move(replaced));
        return;
      }
      const auto spans = find_char_spans(replaced.text, [&](char32_t c) { return c == replacement_char_; });
      append_ranges(replaced, split_ranges(spans, SplitBehavior::MergedWithNext), out);
    });
  }

 private:
  std::string replace_spaces(const std::string& text) const {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
      if (c == ' ') {
        out += replacement_;
      } else {
        out += c;
      }
    }
    return out;
  }

  std::string replacement_;
  char32_t replacement_char_ = 0;
  PrependScheme scheme_;
  bool split_;
};

// Whitespace: keeps the matches of \w+|[^\w\s]+ (HF pre_tokenizers/whitespace.rs).
class Whitespace final : public PreTokenizer {
 public:
  Whitespace()
      : pattern_(Pattern::from_json({{"Regex", R"(\w+|[^\w\s]+)"}},
                                    "Whitespace")) {}
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& piece, std::vector<PreToken>& out) {
      auto spans = pattern_.find_spans(piece.text);
      for (auto& span : spans) span.is_match = !span.is_match;
      append_ranges(piece, split_ranges(spans, SplitBehavior::Removed), out);
    });
  }

 private:
  Pattern pattern_;
};

// WhitespaceSplit: splits on White_Space characters, removing them.
class WhitespaceSplit final : public PreTokenizer {
 public:
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    split_each(pieces, [&](const PreToken& piece, std::vector<PreToken>& out) {
      append_ranges(piece, split_ranges(find_char_spans(piece.text, unicode::is_whitespace), SplitBehavior::Removed),
                    out);
    });
  }
};

class SequencePreTokenizer final : public PreTokenizer {
 public:
  explicit SequencePreTokenizer(std::vector<std::unique_ptr<PreTokenizer>> steps) : steps_(std::move(steps)) {}
  void pre_tokenize(std::vector<PreToken>& pieces) const override {
    for (const auto& step : steps_) step->pre_tokenize(pieces);
  }

 private:
  std::vector<std::unique_ptr<PreTokenizer>> steps_;
};

PrependScheme metaspace_prepend_scheme(const nlohmann::json& json, const std::string& where) {
  if (json.contains("prepend_scheme")) {
    const std::string scheme = json["prepend_scheme"].get<std::string>();
    if (scheme == "always") return PrependScheme::Always;
    if (scheme == "first") return PrependScheme::First;
    if (scheme == "never") return PrependScheme::Never;
    fail("{}: unknown Metaspace prepend_scheme \"{}\"", where, scheme);
  }
  // Files from before prepend_scheme: add_prefix_space true means "always".
  return json.value("add_prefix_space", true) ? PrependScheme::Always : PrependScheme::Never;
}

}  // namespace

std::unique_ptr<PreTokenizer> make_pre_tokenizer(const nlohmann::json& json, const std::string& where, int sequence_depth) {
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    fail("{}: expected an object with a \"type\", got {}", where, json.dump());
  }
  const std::string type = json["type"].get<std::string>();
  if (type == "Split") {
    return std::make_unique<Split>(Pattern::from_json(json.at("pattern"), where + " (Split)"),
                                   split_behavior_from_json(json.at("behavior"), where), json.value("invert", false));
  }
  if (type == "ByteLevel") {
    return std::make_unique<ByteLevel>(json.value("add_prefix_space", true), json.value("use_regex", true));
  }
  if (type == "Digits") return std::make_unique<Digits>(json.value("individual_digits", false));
  if (type == "Metaspace") {
    return std::make_unique<Metaspace>(json.value("replacement", std::string("\xE2\x96\x81")),
                                       metaspace_prepend_scheme(json, where), json.value("split", true));
  }
  if (type == "Whitespace") return std::make_unique<Whitespace>();
  if (type == "WhitespaceSplit") return std::make_unique<WhitespaceSplit>();
  if (type == "Sequence") {
    check_sequence_nesting(sequence_depth, where);
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    const auto& list = json.at("pretokenizers");
    for (size_t i = 0; i < list.size(); ++i) {
      steps.push_back(make_pre_tokenizer(list[i], fmt::format("{}.pretokenizers[{}]", where, i), sequence_depth + 1));
    }
    return std::make_unique<SequencePreTokenizer>(std::move(steps));
  }
  fail("{}: unsupported pre-tokenizer type \"{}\"", where, type);
}

}  // namespace sift
