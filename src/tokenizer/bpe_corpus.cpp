#include "tokenizer/bpe_corpus.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <string>

#include "core/error.h"
#include "io/json_parse.h"

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
void add_row_documents(const json& row, const std::string& where, const std::function<void(std::string_view)>& add,
                       CorpusStats& stats) {
  auto add_text = [&](const json& text, const std::string& field) {
    if (!text.is_string()) fail("{}: field {} must be a string, got {}", where, field, text.type_name());
    const std::string& document = text.get_ref<const std::string&>();
    stats.documents += 1;
    stats.bytes += static_cast<int64_t>(document.size());
    add(document);
  };
  if (!has_document_fields(row)) fail("{}: a row needs \"query\", \"items\" or \"text\"", where);
  if (auto query = row.find("query"); query != row.end()) add_text(*query, "\"query\"");
  if (auto text = row.find("text"); text != row.end()) add_text(*text, "\"text\"");
  if (auto items = row.find("items"); items != row.end()) {
    if (!items->is_array()) fail("{}: field \"items\" must be a list, got {}", where, items->type_name());
    for (size_t i = 0; i < items->size(); ++i) {
      const json& item = (*items)[i];
      const std::string field = fmt::format("items[{}]", i);
      if (item.is_object()) {
        auto text = item.find("text");
        if (text == item.end()) fail("{}: {} has no \"text\"", where, field);
        add_text(*text, field + ".text");
      } else {
        add_text(item, field);
      }
    }
  }
}

}  // namespace

CorpusFormat detect_corpus_format(const std::filesystem::path& path) {
  const std::string extension = path.extension().string();
  if (extension == ".jsonl" || extension == ".ndjson") return CorpusFormat::Jsonl;
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the corpus", path.string());
  std::string line;
  while (std::getline(in, line)) {
    if (is_blank(line)) continue;
    std::optional<json> object = parse_object(line);
    return object && has_document_fields(*object) ? CorpusFormat::Jsonl : CorpusFormat::Text;
  }
  return CorpusFormat::Text;
}

CorpusStats read_corpus_file(const std::filesystem::path& path, const std::function<void(std::string_view)>& add) {
  const CorpusFormat format = detect_corpus_format(path);
  std::ifstream in(path);
  if (!in) fail("{}: cannot open the corpus", path.string());
  CorpusStats stats;
  std::string line;
  while (std::getline(in, line)) {
    stats.lines += 1;
    if (is_blank(line)) continue;
    const std::string where = fmt::format("{}:{}", path.string(), stats.lines);
    try {
      if (format == CorpusFormat::Text) {
        if (line.back() == '\r') line.pop_back();
        stats.documents += 1;
        stats.bytes += static_cast<int64_t>(line.size());
        add(line);
      } else {
        std::optional<json> row = parse_object(line);
        if (!row) fail("{}: not a JSON object (the file is read as JSON lines)", where);
        add_row_documents(*row, where, add, stats);
      }
    } catch (const Error& e) {
      const std::string message = e.what();
      if (message.starts_with(where)) throw;
      fail("{}: {}", where, message);
    }
  }
  if (in.bad()) fail("{}: read error", path.string());
  return stats;
}

}  // namespace sift
