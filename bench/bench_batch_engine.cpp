// The engine alone on a rows file, as `sift batch` feeds it: the yardstick of bench/batch.sh.
// Every row is parsed and tokenized before the clock starts; then the rows are scored in input
// order on one context, the scheduler packing them into calls of the call budget (as it packs
// what sift batch's scorer takes from its queue when the tokenizers are ahead), with no output
// written.
//
//   bench_batch_engine MODEL_DIR ROWS.jsonl [--threads T] [--max-batch-tokens T]
//
// Prints one JSON line: {"rows", "labels", "prefill_tokens", "seconds", "cpu_seconds",
// "read_cpu_seconds", "labels_per_second"}: wall-clock and process CPU time (all threads) of the
// scoring alone, and the CPU time that parsing and tokenizing the rows took before it.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "formats/pending_rows.h"
#include "sift/labeler.h"

namespace {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench_batch_engine MODEL_DIR ROWS.jsonl [--threads T] [--max-batch-tokens T]\n");
    return 2;
  }
  int threads = 0;
  sift::ScoringOptions options;
  for (int i = 3; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--threads") threads = std::stoi(argv[i + 1]);
    else if (flag == "--max-batch-tokens") options.max_batch_tokens = std::stoll(argv[i + 1]);
    else {
      std::fprintf(stderr, "bench_batch_engine: unknown option %s\n", flag.c_str());
      return 2;
    }
  }
  try {
    const sift::Labeler labeler = sift::Labeler::load(argv[1], threads);
    std::ifstream in(argv[2]);
    if (!in) sift::fail("{}: cannot open", argv[2]);
    std::vector<sift::PendingRow> rows;
    std::string line;
    const double read_cpu_start = process_cpu_seconds();
    for (int64_t n = 1; std::getline(in, line); ++n) rows.push_back(sift::read_pending_row(labeler, line, n, options));
    const double read_cpu_seconds = process_cpu_seconds() - read_cpu_start;  // parsing + tokenizing, one thread

    sift::Context context = labeler.context();
    int64_t labels = 0, prefill = 0;
    const auto start = std::chrono::steady_clock::now();
    const double cpu_start = process_cpu_seconds();
    for (const sift::RowResult& result : sift::score_pending_rows(context, rows, options)) {
      labels += int64_t(result.scores.size());
      prefill += result.prefill_tokens;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu_seconds = process_cpu_seconds() - cpu_start;
    std::printf("%s\n", nlohmann::ordered_json{{"rows", rows.size()},
                                               {"labels", labels},
                                               {"prefill_tokens", prefill},
                                               {"seconds", seconds},
                                               {"cpu_seconds", cpu_seconds},
                                               {"read_cpu_seconds", read_cpu_seconds},
                                               {"labels_per_second", double(labels) / seconds}}
                            .dump()
                            .c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_batch_engine: %s\n", e.what());
    return 1;
  }
  return 0;
}
