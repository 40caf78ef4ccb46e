#pragma once
// Training text for `sift tokenizer train`, one document at a time:
//   text  : one document per line (a trailing '\r' is dropped; blank lines are skipped);
//   JSONL : per line, the row's "query" and every item's text ("items": strings or
//           {"text": ...}), i.e. `sift synth` / `sift score` rows, and a top-level "text".
// A file is JSONL when its name ends in .jsonl / .ndjson or its first non-blank line is a
// JSON object with "query", "items" or "text"; otherwise text. Errors name file:line.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string_view>

namespace sift {

enum class CorpusFormat { Text, Jsonl };

CorpusFormat detect_corpus_format(const std::filesystem::path& path);

struct CorpusStats {
  int64_t lines = 0;
  int64_t documents = 0;
  int64_t bytes = 0;  // of the documents
};

// Calls add(document) for each document of the file, in order.
CorpusStats read_corpus_file(const std::filesystem::path& path, const std::function<void(std::string_view)>& add);

}  // namespace sift
