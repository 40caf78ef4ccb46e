// Tokenizer throughput: encode one text at a time on one thread, and encode_batch on 1 and 2
// threads, over a JSON-lines corpus {"text": ...}. Run through bench/tokenizer_vs_reference.sh,
// which builds the corpus and runs Hugging Face tokenizers on it side by side.
//   SIFT_BENCH_TOKENIZER=tokenizer.json SIFT_BENCH_CORPUS=corpus.jsonl bench_tokenizer
#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>

#include "core/parallel.h"
#include "tokenizer/tokenizer.h"

namespace {

struct Fixture {
  std::unique_ptr<sift::Tokenizer> tokenizer;
  std::vector<std::string> texts;
  int64_t n_bytes = 0;
};

const Fixture& fixture() {
  static const Fixture loaded = [] {
    const char* tokenizer_path = std::getenv("SIFT_BENCH_TOKENIZER");
    const char* corpus_path = std::getenv("SIFT_BENCH_CORPUS");
    if (!tokenizer_path || !corpus_path) {
      std::fprintf(stderr, "set SIFT_BENCH_TOKENIZER and SIFT_BENCH_CORPUS (see bench/tokenizer_vs_reference.sh)\n");
      std::exit(2);
    }
    Fixture f;
    f.tokenizer = sift::Tokenizer::load(tokenizer_path);
    std::ifstream corpus(corpus_path);
    std::string line;
    while (std::getline(corpus, line)) {
      f.texts.push_back(nlohmann::json::parse(line)["text"].get<std::string>());
      f.n_bytes += static_cast<int64_t>(f.texts.back().size());
    }
    return f;
  }();
  return loaded;
}

// Each iteration encodes the whole corpus; the word cache is warm after the first one, as
// it is in a long-running process (the reference keeps its cache across calls too).
void BM_EncodeOneByOne(benchmark::State& state) {
  const Fixture& f = fixture();
  const sift::EncodeOptions options{true, sift::SpecialText::Recognise};
  for (auto _ : state) {
    for (const auto& text : f.texts) benchmark::DoNotOptimize(f.tokenizer->encode(text, options));
  }
  state.SetBytesProcessed(state.iterations() * f.n_bytes);
}

void BM_EncodeBatch(benchmark::State& state) {
  const Fixture& f = fixture();
  sift::set_n_threads(static_cast<int>(state.range(0)));
  const sift::EncodeOptions options{true, sift::SpecialText::Recognise};
  for (auto _ : state) benchmark::DoNotOptimize(f.tokenizer->encode_batch(f.texts, options));
  state.SetBytesProcessed(state.iterations() * f.n_bytes);
}

BENCHMARK(BM_EncodeOneByOne)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);
BENCHMARK(BM_EncodeBatch)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(2.0);

}  // namespace

BENCHMARK_MAIN();
