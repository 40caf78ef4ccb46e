#pragma once
// Training text for `sift tokenizer train`, one document at a time:
//   text  : one document per line (blank lines are skipped);
//   JSONL : per line, the row's "query" and every item's text ("items": strings or
//           {"text": ...}), i.e. `sift synth` / `sift score` rows, and a top-level "text".
// Lines are split by the one line rule (io/line_splitter.h: "\n", "\r\n" or a bare "\r"; a line
// longer than max_line_bytes is an error, never held whole). An input is JSONL when its name
// ends in .jsonl / .ndjson or its first non-blank line is a JSON object with "query", "items" or
// "text"; otherwise text. The input is read once, from its first byte to its last, so stdin
// (a pipe) works as a file does. Errors name file:line.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <string>
#include <string_view>

#include "io/line_splitter.h"

namespace sift {

enum class CorpusFormat { Text, Jsonl };

struct CorpusStats {
  CorpusFormat format = CorpusFormat::Text;
  int64_t lines = 0;
  int64_t documents = 0;
  int64_t bytes = 0;  // of the documents
};

using CorpusDocument = std::function<void(std::string_view)>;

// Calls add(document) for each document of `in`, in order; `name` is the input's name in
// messages, and JSONL by its extension.
CorpusStats read_corpus(std::istream& in, const std::string& name, int64_t max_line_bytes, const CorpusDocument& add);

// read_corpus of the file `path`, or of stdin when `path` is "-".
CorpusStats read_corpus_file(const std::string& path, int64_t max_line_bytes, const CorpusDocument& add);

}  // namespace sift
