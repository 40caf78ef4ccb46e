// Scoring throughput of every execution mode, side by side, on random checkpoints:
// labels/s at Lq = 744 query tokens, Li = 28 tokens per item, N items per row (paper §6.1
// workload), and the peak resident memory of each run.
//
//   bench_scoring [--presets=small,qwen3-0.6b] [--ns=1,10,20,50,100,200,400]
//                 [--modes=mis,prefix,independent,generate] [--max-n=prefix:100,independent:20]
//                 [--data=DIR] [google benchmark flags, e.g. --benchmark_format=json]
//
// Checkpoints (Qwen3 architecture, F32) are generated once into DIR (default: bench_data/
// beside this program). The baselines' per-label cost does not depend on N (independent:
// Lq + Li tokens per label; prefix: one forward call per item; generate: A decode steps per
// item), so --max-n caps the N they run at on a slow machine.
//
// Counters: labels_per_s (items per wall-clock second), labels_per_cpu_s (items per
// second of process CPU time, all threads: stable when the machine is shared; x threads
// for the idle-machine figure), prefill_tokens and requests (per row), peak_mb (VmHWM
// during the run, reset before it through /proc/self/clear_refs) and act_mb (peak_mb minus
// the resident memory before the run: activations, KV).
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/resource.h>

#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "model/model.h"
#include "model/random_checkpoint.h"
#include "scoring/generate_mode.h"
#include "scoring/modes.h"

namespace {

using namespace sift;

constexpr int64_t kQueryLen = 744, kItemLen = 28;
constexpr int64_t kAnswerTokensPerItem = 4;  // "k: NO\n" in a Qwen-like BPE: number, ':', ' NO', '\n'
constexpr int64_t kItemLineExtraTokens = 3;  // "k. " before each candidate in the generate prompt

struct Settings {
  std::vector<std::string> presets = {"small"};
  std::vector<int64_t> ns = {1, 10, 20, 50, 100, 200, 400};
  std::vector<std::string> modes = {"mis", "prefix", "independent", "generate"};
  std::map<std::string, int64_t> max_n;  // mode -> largest N to run
  std::filesystem::path data_dir;
};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream stream(text);
  for (std::string item; std::getline(stream, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Reads the /proc/self/status field (kB) as MiB.
double proc_status_mb(const std::string& field) {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stod(line.substr(field.size() + 1)) / 1024.0;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;
}

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

const Model& model_for(const Settings& settings, const std::string& preset) {
  static std::map<std::string, std::unique_ptr<Model>> models;
  auto& model = models[preset];
  if (!model) {
    const std::filesystem::path dir = settings.data_dir / ("scoring_" + preset);
    if (!std::filesystem::exists(dir / "model.safetensors")) {
      std::fprintf(stderr, "bench_scoring: writing a random %s checkpoint to %s\n", preset.c_str(), dir.c_str());
      write_random_checkpoint(dir, preset_model_config(preset, architecture_named("qwen3")), DType::F32, 42);
    }
    model = Model::load(dir);
  }
  return *model;
}

struct Row {
  TokenIds query;
  std::vector<TokenIds> items;
};

Row random_row(int64_t n_items, int64_t vocab) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> token(1000, static_cast<int32_t>(std::min<int64_t>(vocab, 100000)) - 1);
  Row row;
  row.query.resize(kQueryLen);
  for (int32_t& id : row.query) id = token(rng);
  row.items.assign(n_items, TokenIds(kItemLen));
  for (TokenIds& item : row.items)
    for (int32_t& id : item) id = token(rng);
  return row;
}

// Packed generation at the token level: the prompt lists every item (with a few tokens of
// numbering each), then greedy decoding of N * kAnswerTokensPerItem tokens.
int64_t run_generate(const Model& model, const Row& row, int64_t& generated_tokens) {
  TokenIds prompt = row.query;
  for (const TokenIds& item : row.items) {
    prompt.insert(prompt.end(), kItemLineExtraTokens, 500);
    prompt.insert(prompt.end(), item.begin(), item.end());
  }
  const int64_t budget = static_cast<int64_t>(row.items.size()) * kAnswerTokensPerItem;
  Session session(model);
  generated_tokens = static_cast<int64_t>(greedy_decode(session, prompt, budget, [](int32_t) { return false; }).size());
  return static_cast<int64_t>(prompt.size());
}

void run_benchmark(benchmark::State& state, const Settings* settings, std::string preset, std::string mode_name) {
  const Model& model = model_for(*settings, preset);
  const int64_t n_items = state.range(0);
  const Row row = random_row(n_items, model.config().vocab_size);
  const AnswerTokenIds answer{9454, 5349};
  const ScoringMode mode = *parse_scoring_mode(mode_name);
  const int64_t limit = 1 << 20;  // one request per row: request sizing is measured separately

  malloc_trim(0);  // hand back what earlier runs freed, so act_mb is this run's own
  const double rss_before = proc_status_mb("VmRSS");
  reset_peak_rss();
  const double cpu_before = process_cpu_seconds();
  int64_t prefill_tokens = 0, requests = 0, generated_tokens = 0;
  Session session(model);
  const TokenRow token_row{row.query, row.items};
  for (auto _ : state) {
    if (mode == ScoringMode::Generate) {
      prefill_tokens = run_generate(model, row, generated_tokens);
      requests = 1;
    } else {
      ItemScores scores = score_token_rows(session, mode, answer, {&token_row, 1}, {limit, limit})[0];
      benchmark::DoNotOptimize(scores.scores.data());
      prefill_tokens = scores.prefill_tokens;
      requests = scores.requests;
    }
  }
  const double cpu_seconds = process_cpu_seconds() - cpu_before;
  const double peak = proc_status_mb("VmHWM");
  state.counters["labels_per_cpu_s"] = static_cast<double>(n_items) / cpu_seconds;
  state.counters["labels_per_s"] = benchmark::Counter(static_cast<double>(n_items), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["prefill_tokens"] = static_cast<double>(prefill_tokens);
  state.counters["requests"] = static_cast<double>(requests);
  if (mode == ScoringMode::Generate) state.counters["generated_tokens"] = static_cast<double>(generated_tokens);
  state.counters["peak_mb"] = peak;
  state.counters["act_mb"] = std::max(0.0, peak - rss_before);
}

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  settings.data_dir = std::filesystem::read_symlink("/proc/self/exe").parent_path() / "bench_data";
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&](const char* flag) -> std::optional<std::string> {
      const std::string prefix = std::string(flag) + "=";
      if (arg.rfind(prefix, 0) == 0) return arg.substr(prefix.size());
      return std::nullopt;
    };
    if (auto v = value("--presets")) settings.presets = split_list(*v);
    else if (auto v = value("--modes")) settings.modes = split_list(*v);
    else if (auto v = value("--ns")) {
      settings.ns.clear();
      for (const std::string& n : split_list(*v)) settings.ns.push_back(std::stoll(n));
    } else if (auto v = value("--max-n")) {
      for (const std::string& cap : split_list(*v)) {
        const size_t colon = cap.find(':');
        if (colon == std::string::npos) {
          std::fprintf(stderr, "bench_scoring: --max-n wants mode:N pairs, got %s\n", cap.c_str());
          return 2;
        }
        settings.max_n[cap.substr(0, colon)] = std::stoll(cap.substr(colon + 1));
      }
    }
    else if (auto v = value("--data")) settings.data_dir = *v;
    else rest.push_back(argv[i]);
  }
  for (const std::string& preset : settings.presets)
    for (const int64_t n : settings.ns)  // N-major: one N's modes side by side
      for (const std::string& mode : settings.modes) {
        if (!parse_scoring_mode(mode)) {
          std::fprintf(stderr, "bench_scoring: unknown mode %s\n", mode.c_str());
          return 2;
        }
        if (settings.max_n.count(mode) && n > settings.max_n.at(mode)) continue;
        benchmark::RegisterBenchmark((preset + "/" + mode).c_str(), run_benchmark, &settings, preset, mode)
            ->Arg(n)
            ->ArgName("N")
            ->Iterations(1)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
  int rest_argc = static_cast<int>(rest.size());
  benchmark::Initialize(&rest_argc, rest.data());
  try {
    benchmark::RunSpecifiedBenchmarks();
  } catch (const sift::Error& e) {
    std::fprintf(stderr, "bench_scoring: %s\n", e.what());
    return 1;
  }
  benchmark::Shutdown();
  return 0;
}
