// `sift tokenize` and `sift detokenize`: JSON lines in (stdin, split by the one line rule of
// io/line_splitter.h), JSON lines out, one output line per input line and in the same order. A line that cannot be handled gives
// {"line": n, "error": "..."} in its place (n counts from 1) and processing goes on.
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "core/error.h"
#include "core/parallel.h"
#include "io/file_identity.h"
#include "io/input_file.h"
#include "io/json_parse.h"
#include "io/line_reader.h"
#include "tokenizer/token_ids.h"
#include "tokenizer/tokenizer.h"

namespace sift::apps {
namespace {

struct TokenizeOptions {
  std::string tokenizer_path;
  bool no_special = false;    // tokenize: leave out the post-processor's tokens
  bool skip_special = false;  // detokenize: drop special tokens
  int64_t max_line_bytes = kDefaultMaxLineBytes;
  bool strict = false;
};

std::string error_line(int64_t line_number, const std::string& message) {
  return nlohmann::json{{"line", line_number}, {"error", message}}.dump(-1, ' ', false,
                                                                       nlohmann::json::error_handler_t::replace);
}

// Reads stdin in batches (what is already buffered, up to kBatch lines, so that a caller
// feeding one line at a time gets its answer at once), lines split by the one line rule
// (io/line_reader.h), maps each line with `process` spread over threads, and writes the
// results in order. `process` throws on a bad line; a line over --max-line-bytes is that
// line's error without being parsed. Ends with a line on stderr counting the lines and their
// errors (and, with --strict, a failed run when any line failed).
template <typename Process>
void map_json_lines(std::string_view command, const TokenizeOptions& options, Process&& process) {
  const int64_t max_line_bytes = options.max_line_bytes;
  constexpr size_t kBatch = 1024;
  std::ios::sync_with_stdio(false);
  InputFile input("");
  LineReader reader(input.stream(), max_line_bytes);
  std::vector<InputLine> lines(kBatch);
  std::vector<std::string> outputs(kBatch);
  std::vector<char> failed(kBatch);
  int64_t n_read = 0, n_failed = 0;
  while (true) {
    size_t n_lines = 0;
    while (n_lines < kBatch && reader.next(lines[n_lines])) {
      ++n_lines;
      if (!reader.has_buffered_input()) break;
    }
    if (n_lines == 0) break;
    parallel_for(static_cast<int64_t>(n_lines), [&](int64_t i) {
      const InputLine& line = lines[i];
      failed[i] = 0;
      try {
        if (line.too_long) fail("{}", too_long_line_message(line, max_line_bytes));
        outputs[i] = process(parse_json(line.text, ""));
      } catch (const std::exception& e) {
        outputs[i] = error_line(line.number, e.what());
        failed[i] = 1;
      }
    });
    for (size_t i = 0; i < n_lines; ++i) {
      std::cout << output_rows(outputs[i] + '\n');
      n_failed += failed[i];
    }
    n_read += static_cast<int64_t>(n_lines);
    std::cout.flush();
  }
  if (!global_options().quiet)
    fmt::print(stderr, "{}: {} ({})\n", command, counted(n_read, "line"), counted(n_failed, "error"));
  check_strict(options.strict, n_failed, n_read, "their error lines are on stdout");
}

// stdout redirected over the tokenizer file would destroy it before it is read.
void refuse_stdout_over_tokenizer(const TokenizeOptions& options) {
  const NamedInput inputs[] = {{options.tokenizer_path, "--tokenizer"}};
  refuse_descriptor_over_inputs(1, "stdout", inputs);
}

void run_tokenize(const TokenizeOptions& options) {
  refuse_stdout_over_tokenizer(options);
  const auto tokenizer = Tokenizer::load(options.tokenizer_path);
  const EncodeOptions encode_options{!options.no_special, SpecialText::Recognise};
  map_json_lines("sift tokenize", options, [&](const nlohmann::json& input) {
    if (!input.is_object() || !input.contains("text") || !input["text"].is_string()) {
      fail("expected {{\"text\": \"...\"}}");
    }
    return nlohmann::json{{"ids", tokenizer->encode(input["text"].get<std::string>(), encode_options)}}.dump();
  });
}

void run_detokenize(const TokenizeOptions& options) {
  refuse_stdout_over_tokenizer(options);
  const auto tokenizer = Tokenizer::load(options.tokenizer_path);
  map_json_lines("sift detokenize", options, [&](const nlohmann::json& input) {
    if (!input.is_object() || !input.contains("ids") || !input["ids"].is_array()) fail("expected {{\"ids\": [...]}}");
    std::vector<int32_t> ids;
    const nlohmann::json& list = input["ids"];
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].is_number_integer()) fail("ids must be integers, got {}", list[i].dump());
      ids.push_back(token_id_from_json(list[i], fmt::format("ids[{}]", i)));  // [0, 2^31 - 1]
    }
    const std::string text = tokenizer->decode(ids, options.skip_special);
    return nlohmann::json{{"text", text}}.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  });
}

}  // namespace
}  // namespace sift::apps

SIFT_COMMAND(tokenize) {
  auto options = std::make_shared<sift::apps::TokenizeOptions>();
  auto* tokenize = app.add_subcommand(
      "tokenize",
      "Read JSON lines {\"text\": \"...\"} on stdin, write {\"ids\": [...]} per line, in order.\n"
      "Special tokens written in the text (e.g. <|im_end|>) ARE recognised here, like Hugging Face\n"
      "encode: this command tokenizes trusted template text. (The scoring path encodes user\n"
      "fields with special-token text taken as plain text, so a profile cannot inject them.)\n"
      "A malformed line gives {\"line\": n, \"error\": \"...\"} in its place.");
  tokenize->add_option("--tokenizer", options->tokenizer_path, "tokenizer.json (Hugging Face format)")
      ->required()
      ->check(CLI::ExistingFile);
  tokenize->add_flag("--no-special", options->no_special,
                     "leave out the post-processor's tokens (BOS/EOS), like add_special_tokens=False");
  sift::apps::add_max_line_bytes_option(tokenize, options->max_line_bytes,
                                        "a longer line gives its error line, not parsed");
  sift::apps::add_strict_flag(tokenize, options->strict, "failed (its error line is in the output)");
  tokenize->callback([options] { sift::apps::run_tokenize(*options); });

  auto* detokenize = app.add_subcommand(
      "detokenize",
      "Read JSON lines {\"ids\": [...]} on stdin, write {\"text\": \"...\"} per line, in order.\n"
      "Ids are integers in [0, 2^31 - 1]; ids with no token are dropped, as Hugging Face decode\n"
      "does. A malformed line gives\n"
      "{\"line\": n, \"error\": \"...\"} in its place.");
  detokenize->add_option("--tokenizer", options->tokenizer_path, "tokenizer.json (Hugging Face format)")
      ->required()
      ->check(CLI::ExistingFile);
  detokenize->add_flag("--skip-special", options->skip_special, "drop special tokens, like skip_special_tokens=True");
  sift::apps::add_max_line_bytes_option(detokenize, options->max_line_bytes,
                                        "a longer line gives its error line, not parsed");
  sift::apps::add_strict_flag(detokenize, options->strict, "failed (its error line is in the output)");
  detokenize->callback([options] { sift::apps::run_detokenize(*options); });
}
