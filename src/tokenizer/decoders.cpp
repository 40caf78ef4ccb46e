#include "tokenizer/decoders.h"

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "tokenizer/sequence_nesting.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/pattern.h"
#include "tokenizer/utf8.h"

namespace sift {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

// ByteLevel: every token whose characters are all table characters becomes those bytes
// (any other token is kept as its UTF-8 bytes); all bytes are joined and read as lossy UTF-8.
class ByteLevelDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string bytes;
    std::string token_bytes;
    for (const auto& token : tokens) {
      token_bytes.clear();
      bool all_mapped = true;
      size_t pos = 0;
      while (pos < token.size()) {
        const auto byte = byte_level::char_to_byte(utf8::next(token, pos));
        if (!byte) {
          all_mapped = false;
          break;
        }
        token_bytes += static_cast<char>(*byte);
      }
      bytes += all_mapped ? token_bytes : token;
    }
    tokens = {utf8::lossy(bytes)};
  }
};

// Metaspace: the replacement character becomes a space, except in the first token, where it
// is dropped unless prepend_scheme is "never".
class MetaspaceDecoder final : public Decoder {
 public:
  MetaspaceDecoder(std::string replacement, bool drop_in_first_token)
      : replacement_(std::move(replacement)), drop_in_first_token_(drop_in_first_token) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (size_t i = 0; i < tokens.size(); ++i) {
      const std::string_view substitute = i == 0 && drop_in_first_token_ ? "" : " ";
      std::string out;
      const std::string& token = tokens[i];
      for (size_t pos = token.find(replacement_), previous = 0;; pos = token.find(replacement_, previous)) {
        out.append(token, previous, pos == std::string::npos ? std::string::npos : pos - previous);
        if (pos == std::string::npos) break;
        out += substitute;
        previous = pos + replacement_.size();
      }
      tokens[i] = std::move(out);
    }
  }

 private:
  std::string replacement_;
  bool drop_in_first_token_;
};

// ByteFallback: runs of "<0xXX>" tokens become the string of those bytes; if the bytes are
// not valid UTF-8, each byte becomes one U+FFFD.
class ByteFallbackDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<std::string> out;
    std::string pending_bytes;
    const auto flush = [&] {
      if (pending_bytes.empty()) return;
      if (utf8::lossy(pending_bytes) == pending_bytes) {
        out.push_back(pending_bytes);
      } else {
        for (size_t i = 0; i < pending_bytes.size(); ++i) out.emplace_back(kReplacementCharacter);
      }
      pending_bytes.clear();
    };
    for (auto& token : tokens) {
      if (const auto byte = parse_byte_token(token)) {
        pending_bytes += static_cast<char>(*byte);
        continue;
      }
      flush();
      out.push_back(std::move(token));
    }
    flush();
    tokens = std::move(out);
  }

 private:
  static std::optional<unsigned char> parse_byte_token(const std::string& token) {
    if (token.size() != 6 || !token.starts_with("<0x") || token.back() != '>') return std::nullopt;
    unsigned value = 0;
    for (const char c : token.substr(3, 2)) {
      value <<= 4;
      if (c >= '0' && c <= '9') value |= static_cast<unsigned>(c - '0');
      else if (c >= 'A' && c <= 'F') value |= static_cast<unsigned>(c - 'A' + 10);
      else if (c >= 'a' && c <= 'f') value |= static_cast<unsigned>(c - 'a' + 10);
      else return std::nullopt;
    }
    return static_cast<unsigned char>(value);
  }
};

class FuseDecoder final : public Decoder {
 public:
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::string joined;
    for (const auto& token : tokens) joined += token;
    tokens = {joined};
  }
};

// Strip: removes up to `start` leading and `stop` trailing `content` characters per token.
class StripDecoder final : public Decoder {
 public:
  StripDecoder(std::string content, size_t start, size_t stop) : content_(std::move(content)), start_(start), stop_(stop) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (auto& token : tokens) {
      std::vector<std::string_view> chars;
      for (size_t pos = 0; pos < token.size();) {
        const size_t begin = pos;
        utf8::next(token, pos);
        chars.emplace_back(token.data() + begin, pos - begin);
      }
      size_t first = 0, last = chars.size();
      while (first < start_ && first < last && chars[first] == content_) ++first;
      for (size_t n = 0; n < stop_ && last > first && chars[last - 1] == content_; ++n) --last;
      std::string out;
      for (size_t i = first; i < last; ++i) out += chars[i];
      token = std::move(out);
    }
  }

 private:
  std::string content_;
  size_t start_, stop_;
};

// Replace: every match of the pattern in each token becomes `content`.
class ReplaceDecoder final : public Decoder {
 public:
  ReplaceDecoder(Pattern pattern, std::string content) : pattern_(std::move(pattern)), content_(std::move(content)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    std::vector<ByteRange> matches;
    for (auto& token : tokens) {
      matches.clear();
      pattern_.find_all(token, matches);
      std::string out;
      size_t previous = 0;
      for (const auto& [start, end] : matches) {
        out.append(token, previous, start - previous);
        out += content_;
        previous = end;
      }
      out.append(token, previous, std::string::npos);
      token = std::move(out);
    }
  }

 private:
  Pattern pattern_;
  std::string content_;
};

class SequenceDecoder final : public Decoder {
 public:
  explicit SequenceDecoder(std::vector<std::unique_ptr<Decoder>> steps) : steps_(std::move(steps)) {}
  void decode_chain(std::vector<std::string>& tokens) const override {
    for (const auto& step : steps_) step->decode_chain(tokens);
  }

 private:
  std::vector<std::unique_ptr<Decoder>> steps_;
};

}  // namespace

std::unique_ptr<Decoder> make_decoder(const nlohmann::json& json, const std::string& where, int sequence_depth) {
  if (!json.is_object() || !json.contains("type") || !json["type"].is_string()) {
    fail("{}: expected an object with a \"type\", got {}", where, json.dump());
  }
  const std::string type = json["type"].get<std::string>();
  if (type == "ByteLevel") return std::make_unique<ByteLevelDecoder>();
  if (type == "Metaspace") {
    bool prepends = json.value("add_prefix_space", true);
    if (json.contains("prepend_scheme")) prepends = json["prepend_scheme"].get<std::string>() != "never";
    return std::make_unique<MetaspaceDecoder>(json.value("replacement", std::string("\xE2\x96\x81")), prepends);
  }
  if (type == "ByteFallback") return std::make_unique<ByteFallbackDecoder>();
  if (type == "Fuse") return std::make_unique<FuseDecoder>();
  if (type == "Strip") {
    return std::make_unique<StripDecoder>(json.at("content").get<std::string>(), json.value("start", size_t{0}),
                                          json.value("stop", size_t{0}));
  }
  if (type == "Replace") {
    return std::make_unique<ReplaceDecoder>(Pattern::from_json(json.at("pattern"), where + " (Replace)"),
                                            json.at("content").get<std::string>());
  }
  if (type == "Sequence") {
    check_sequence_nesting(sequence_depth, where);
    std::vector<std::unique_ptr<Decoder>> steps;
    const auto& list = json.at("decoders");
    for (size_t i = 0; i < list.size(); ++i) {
      steps.push_back(make_decoder(list[i], fmt::format("{}.decoders[{}]", where, i), sequence_depth + 1));
    }
    return std::make_unique<SequenceDecoder>(std::move(steps));
  }
  fail("{}: unsupported decoder type \"{}\"", where, type);
}

}  // namespace sift
