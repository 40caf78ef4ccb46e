// sift tokenizer train: a byte-level BPE vocabulary of a chosen size trained on text or
// JSON-lines files, written as a tokenizer.json that Hugging Face tokenizers and sift load
// alike. The algorithm: tokenizer/bpe_trainer.h; the input formats: tokenizer/bpe_corpus.h.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/file_identity.h"
#include "io/path_lock.h"
#include "tokenizer/bpe_corpus.h"
#include "tokenizer/bpe_trainer.h"

namespace {

// "a,b,c" -> {"a", "b", "c"}; "" -> {}.
std::vector<std::string> comma_list(const std::string& text) {
  std::vector<std::string> out;
  if (text.empty()) return out;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, ',')) out.push_back(part);
  if (text.back() == ',') out.emplace_back();
  return out;
}

}  // namespace

SIFT_COMMAND(tokenizer) {
  struct Options {
    int64_t vocab_size = 0;
    std::vector<std::string> inputs;
    std::string out;
    std::string specials = "<|endoftext|>,<|im_start|>,<|im_end|>";
    std::string single_tokens = "YES,NO";
    bool prefix_space = false;
    int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  };
  auto options = std::make_shared<Options>();
  CLI::App* tokenizer = app.add_subcommand("tokenizer", "Tokenizer tools");
  tokenizer->require_subcommand(1);
  CLI::App* train = tokenizer->add_subcommand(
      "train", "Train a byte-level BPE tokenizer.json of --vocab-size tokens (bytes + merges + special tokens)");
  train->add_option("--vocab-size", options->vocab_size,
                    "V: tokens in all, the 256 bytes and the special tokens included")
      ->required()
      ->check(CLI::PositiveNumber);
  train->add_option("--input", options->inputs,
                    "corpus file, repeatable: text (one document per line) or JSON lines (\"query\", item \"text\", "
                    "\"text\": `sift synth` output); - for stdin")
      ->required();
  train->add_option("--out", options->out, "the tokenizer.json to write (replaced when complete)")->required();
  train->add_option("--special", options->specials, "special (added) tokens, comma-separated; \"\" for none")
      ->capture_default_str();
  train->add_option("--single-token", options->single_tokens,
                    "words that must encode to exactly one token, comma-separated (sift.json's answer tokens); "
                    "\"\" for none")
      ->capture_default_str();
  train->add_flag("--prefix-space", options->prefix_space,
                  "every word gets a leading space (ByteLevel add_prefix_space), so a word is one token id "
                  "whether it starts a text or not. A labeler seldom needs it: each prompt part is tokenized as one "
                  "rendered text, template and user text together; it matters only where user text starts a part "
                  "or follows a newline (the bundled labeler is trained without it)");
  sift::apps::add_max_line_bytes_option(train, options->max_line_bytes,
                                        "a longer corpus line is an error naming its file and line");
  train->callback([options] {
    const auto start = std::chrono::steady_clock::now();
    sift::BpeTrainerOptions trainer_options;
    trainer_options.vocab_size = options->vocab_size;
    trainer_options.special_tokens = comma_list(options->specials);
    trainer_options.single_token_words = comma_list(options->single_tokens);
    trainer_options.prefix_space = options->prefix_space;
    sift::BpeTrainer trainer(trainer_options);

    std::vector<sift::NamedInput> inputs;
    for (const std::string& input : options->inputs) inputs.push_back({input == "-" ? "/dev/stdin" : input, "--input"});
    sift::refuse_output_over_inputs(options->out, inputs);
    const sift::PathLock lock(options->out);
    int64_t corpus_bytes = 0;
    for (const std::string& input : options->inputs) {
      const sift::CorpusStats stats = sift::read_corpus_file(
          input, options->max_line_bytes, [&trainer](std::string_view document) { trainer.add_document(document); });
      corpus_bytes += stats.bytes;
      fmt::print(stderr, "sift tokenizer train: {}: {} documents, {:.1f} MB\n", input == "-" ? "stdin" : input,
                 stats.documents, static_cast<double>(stats.bytes) / 1e6);
    }
    if (trainer.n_documents() == 0) sift::fail("the corpus is empty: no document in {}", fmt::join(options->inputs, ", "));
    const double read_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const sift::TrainedBpe bpe = trainer.train();
    const std::string text = sift::trained_bpe_to_tokenizer_json(bpe).dump(2) + "\n";
    sift::write_file_atomically(options->out, text);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    nlohmann::ordered_json summary = {{"out", options->out},
                                      {"vocab_size", bpe.vocab_size()},
                                      {"merges", bpe.merges.size()},
                                      {"special_tokens", bpe.special_tokens},
                                      {"documents", trainer.n_documents()},
                                      {"words", trainer.n_words()},
                                      {"distinct_words", trainer.n_distinct_words()},
                                      {"corpus_bytes", corpus_bytes},
                                      {"read_seconds", read_seconds},
                                      {"seconds", seconds}};
    sift::apps::print_report(summary);
    fmt::print(stderr, "sift tokenizer train: {} tokens ({} merges) from {} words ({} distinct) in {:.1f} s -> {}\n",
               bpe.vocab_size(), bpe.merges.size(), trainer.n_words(), trainer.n_distinct_words(), seconds,
               options->out);
  });
}
