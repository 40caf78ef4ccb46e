#include "tokenizer/normalizers.h"

#include <nlohmann/json.hpp>

#include <vector>

#include "core/error.h"
#include "tokenizer/sequence_nesting.h"
#include "tokenizer/pattern.h"
#include "tokenizer/unicode.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

class UnicodeNormalizer final : public Normalizer {
 public:
  explicit UnicodeNormalizer(unicode::Form form) : form_(form) {}
  void normalize(std::string& text) const override { text = unicode::normalize(text, form_); }

 private:
  unicode::Form form_;
};

class Lowercase final : public Normalizer {
 public:
  void normalize(std::string& text) const override { text = unicode::lowercase(text); }
};

// Strip: removes leading and/or trailing characters with the White_Space property.
class Strip final : public Normalizer {
 public:
  Strip(bool left, bool right) : left_(left), right_(right) {}
  void normalize(std::string& text) const override {
    size_t begin = 0, end = text.size();
    if (left_) {
      size_t pos = 0;
      while (pos < end) {
        const size_t start = pos;
        if (!unicode::is_whitespace(utf8::next(text, pos))) {
          pos = start;
          break;
        }
      }
      begin = pos;
    }
    if (right_) {
      while (end > begin) {
        size_t start = end - 1;
        while (start > begin && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
        size_t pos = start;
        if (!unicode::is_whitespace(utf8::next(text, pos))) break;
        end = start;
      }
    }
    text = text.substr(begin, end - begin);
  }

 private:
  bool left_, right_;
};

// Replace: every non-overlapping match of the pattern is replaced by `content`.
class Replace final : public Normalizer {
 public:
  Replace(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void normalize(std::string& text) const override {
    std::vector<ByteRange> matches;
    pattern_.find_all(text, matches);
    if (matches.empty()) return;
    std::string out;
    size_t previous = 0;
    for (const auto& [start, end] : matches) {
      out.append(text, previous, start - previous);
      out += content_;
      previous = end;
    }
    out.append(text, previous, std::string::npos);
    text = std::move(out);
  }

 private:
  Pattern pattern_;
  std::string content_;
};

// Prepend: adds `prepend` in front of any non-empty text.
class Prepend final : public Normalizer {
 public:
  explicit Prepend(std::string prefix) : prefix_(std::move(prefix)) {}
  void normalize(std::string& text) const override {
    if (!text.empty()) text.insert(0, prefix_);
  }

 private:
  std::string prefix_;
};

class SequenceNormalizer final : public Normalizer {
 public:
  explicit SequenceNormalizer(std::vector<std::unique_ptr<Normalizer>> steps) : steps_(std::move(steps)) {}
  void normalize(std::string& text) const override {
    for (const auto& step : steps_) step->normalize(text);
  }

 private:
  std::vector<std::unique_ptr<Normalizer>> steps_;
};

}  // namespace

std::unique_ptr<Normalizer> make_normalizer(const nlohmann::json& json, const std::string& where, int sequence_depth) {
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    fail("{}: expected an object with a \"type\", got {}", where, json.dump());
  }
  const std::string type = json["type"].get<std::string>();
  if (type == "NFC") return std::make_unique<UnicodeNormalizer>(unicode::Form::NFC);
  if (type == "NFD") return std::make_unique<UnicodeNormalizer>(unicode::Form::NFD);
  if (type == "NFKC") return std::make_unique<UnicodeNormalizer>(unicode::Form::NFKC);
  if (type == "NFKD") return std::make_unique<UnicodeNormalizer>(unicode::Form::NFKD);
  if (type == "Lowercase") return std::make_unique<Lowercase>();
  if (type == "Strip") {
    return std::make_unique<Strip>(json.value("strip_left", true), json.value("strip_right", true));
  }
  if (type == "Replace") {
    return std::make_unique<Replace>(Pattern::from_json(json.at("pattern"), where + " (Replace)"),
                                     json.at("content").get<std::string>());
  }
  if (type == "Prepend") return std::make_unique<Prepend>(json.at("prepend").get<std::string>());
  if (type == "Sequence") {
    check_sequence_nesting(sequence_depth, where);
    std::vector<std::unique_ptr<Normalizer>> steps;
    const auto& list = json.at("normalizers");
    for (size_t i = 0; i < list.size(); ++i) {
      steps.push_back(make_normalizer(list[i], fmt::format("{}.normalizers[{}]", where, i), sequence_depth + 1));
    }
    return std::make_unique<SequenceNormalizer>(std::move(steps));
  }
  fail("{}: unsupported normalizer type \"{}\"", where, type);
}

}  // namespace sift
