#pragma once
// A tiny byte-level BPE tokenizer.json for the trainer's tests (GPT-2 style: ByteLevel
// pre-tokenizer and decoder): the 256 byte symbols as ids 0..255, then merges that make
// " YES" and " NO" one token each (so the default artifact resolves to them), and one
// added special token "<|endoftext|>".
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace sift::train::testing {

// GPT-2's bytes_to_unicode: printable bytes map to themselves, the rest to U+0100 onwards.
inline std::string byte_symbol(int byte) {
  auto printable = [](int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255); };
  int code = byte;
  if (!printable(byte)) {
    int n = 0;
    for (int b = 0; b < byte; ++b) n += !printable(b);
    code = 256 + n;
  }
  std::string utf8;
  if (code < 0x80) {
    utf8 += static_cast<char>(code);
  } else {
    utf8 += static_cast<char>(0xC0 | (code >> 6));
    utf8 += static_cast<char>(0x80 | (code & 0x3F));
  }
  return utf8;
}

inline nlohmann::json tiny_tokenizer_json() {
  using nlohmann::json;
  json vocab = json::object();
  for (int b = 0; b < 256; ++b) vocab[byte_symbol(b)] = b;
  const std::string space = byte_symbol(' ');
  const std::vector<std::pair<std::string, std::string>> merges = {
      {space, "Y"}, {"E", "S"}, {space + "Y", "ES"}, {space, "N"}, {space + "N", "O"},
      {space, "t"}, {"i", "n"}, {"e", "r"}, {"o", "n"}, {space, "a"}};
  json merge_list = json::array();
  int next_id = 256;
  for (const auto& [a, b] : merges) {
    merge_list.push_back(a + " " + b);
    vocab[a + b] = next_id++;
  }
  const json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true},
                           {"use_regex", true}};
  return {{"version", "1.0"},
          {"truncation", nullptr},
          {"padding", nullptr},
          {"added_tokens",
           json::array({{{"id", next_id}, {"content", "<|endoftext|>"}, {"single_word", false}, {"lstrip", false},
                         {"rstrip", false}, {"normalized", false}, {"special", true}}})},
          {"normalizer", nullptr},
          {"pre_tokenizer", byte_level},
          {"post_processor", byte_level},
          {"decoder", byte_level},
          {"model",
           {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", ""},
            {"end_of_word_suffix", ""}, {"fuse_unk", false}, {"byte_fallback", false}, {"vocab", vocab},
            {"merges", merge_list}}}};
}

inline constexpr int64_t kTinyTokenizerVocab = 256 + 10 + 1;

inline void write_tiny_tokenizer(const std::filesystem::path& path) {
  std::ofstream out(path);
  out << tiny_tokenizer_json().dump();
}

}  // namespace sift::train::testing
