#include "tokenizer/bpe_corpus.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

#include "core/error.h"
#include "io/input_file.h"
#include "io/json_parse.h"
#include "io/line_reader.h"
#include "io/row_items.h"

namespace sift {
namespace {

using nlohmann::json;

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r\n") == std::string_view::npos; }

std::optional<json> parse_object(std::string_view line) {
  try {
    json value = parse_json(line, "");
    if (!value.is_object()) return std::nullopt;
    return value;
  } catch (const Error&) {  // not JSON (or nested too deep): a plain text line
    return std::nullopt;
  }
}

bool has_document_fields(const json& object) {
  return object.contains("query") || object.contains("items") || object.contains("text");
}

// The documents of one JSONL row.
void add_row_documents(const json& row, const std::string& where, const CorpusDocument& add,
                       CorpusStats& stats) {
  const auto add_document = [&](std::string_view document) {
    stats.documents += 1;
    stats.bytes += static_cast<int64_t>(document.size());
    add(document);
  };
  const auto add_text = [&](const json& text, std::string_view field) {
    if (!text.is_string()) fail("{}: field {} must be a string, got {}", where, field, text.type_name());
    add_document(text.get_ref<const std::string&>());
  };
  if (!has_document_fields(row)) fail("{}: a row needs \"query\", \"items\" or \"text\"", where);
  if (auto query = row.find("query"); query != row.end()) add_text(*query, "\"query\"");
  if (auto text = row.find("text"); text != row.end()) add_text(*text, "\"text\"");
  if (auto items = row.find("items"); items != row.end())
    for_each_row_item<JsonFormat>(*items, "items", [&](const std::string& item, const json*) { add_document(item); });
}

}  // namespace

CorpusStats read_corpus(std::istream& in, const std::string& name, int64_t max_line_bytes, const CorpusDocument& add) {
  const std::string extension = std::filesystem::path(name).extension().string();
  std::optional<CorpusFormat> format;  // decided by the extension, else by the first non-blank line
  if (extension == ".jsonl" || extension == ".ndjson") format = CorpusFormat::Jsonl;
  LineReader reader(in, max_line_bytes);
  CorpusStats stats;
  InputLine line;
  while (reader.next(line)) {
    stats.lines = line.number;
    const std::string where = fmt::format("{}:{}", name, line.number);
    if (line.too_long) fail("{}: {}", where, too_long_line_message(line, max_line_bytes));
    if (is_blank(line.text)) continue;
    if (!format) {
      std::optional<json> object = parse_object(line.text);
      format = object && has_document_fields(*object) ? CorpusFormat::Jsonl : CorpusFormat::Text;
    }
    try {
      if (*format == CorpusFormat::Text) {
        stats.documents += 1;
        stats.bytes += static_cast<int64_t>(line.text.size());
        add(line.text);
      } else {
        std::optional<json> row = parse_object(line.text);
        if (!row) fail("{}: not a JSON object (the file is read as JSON lines)", where);
        add_row_documents(*row, where, add, stats);
      }
    } catch (const Error& e) {
      const std::string message = e.what();
      if (message.starts_with(where)) throw;
      fail("{}: {}", where, message);
    }
  }
  stats.format = format.value_or(CorpusFormat::Text);
  return stats;
}

CorpusStats read_corpus_file(const std::string& path, int64_t max_line_bytes, const CorpusDocument& add) {
  InputFile input(path);
  return read_corpus(input.stream(), input.name(), max_line_bytes, add);
}

}  // namespace sift
