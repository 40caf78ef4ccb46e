// Scoring throughput of every execution mode, side by side, on random checkpoints:
// labels/s at Lq = 744 query tokens, Li = 28 tokens per item, N items per row (paper §6.1
// workload), and the peak resident memory of each run.
//
//   bench_scoring [--presets=small,qwen3-0.6b] [--ns=1,10,20,50,100,200,400]
//                 [--modes=mis,prefix,independent,generate] [--max-baseline-tokens=T]
//                 [--data=DIR] [google benchmark flags, e.g. --benchmark_format=json]
//
// Checkpoints (Qwen3 architecture, F32) are generated once into DIR (default: bench_data/
// beside this program). independent and generate cost O(N) full passes; a run whose
// modelled token count (independent: N (Lq + Li); generate: prompt + N*A decode steps, each
// a forward call) exceeds --max-baseline-tokens is skipped, since their per-label cost does
// not depend on N: the table then shows the largest N measured.
//
// Counters: labels_per_s (items scored per second), prefill_tokens and requests (per
// row), peak_mb (VmHWM during the run, reset before it through /proc/self/clear_refs)
// and act_mb (peak_mb minus the resident memory before the run: activations, KV).
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <fstream>
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
  int64_t max_baseline_tokens = 80000;
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

void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

const Model& model_for(const Settings& settings, const std::string& preset) {
  static std::map<std::string, std::unique_ptr<Model>> models;
  auto& model = models[preset];
  if (!model) {
    const std::filesystem::path dir = settings.data_dir / ("scoring_" + preset);
    if (!std::filesystem::exists(dir / "model.safetensors")) {
      std::fprintf(stderr, "bench_scoring: writing a random %s checkpoint to %s\n", preset.c_str(), dir.c_str());
      write_random_checkpoint(dir, preset_model_config(preset, Architecture::Qwen3), DType::F32, 42);
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
  generated_tokens = static_cast<int64_t>(greedy_decode(model, prompt, budget, [](int32_t) { return false; }).size());
  return static_cast<int64_t>(prompt.size());
}

void run_benchmark(benchmark::State& state, const Settings* settings, std::string preset, std::string mode_name) {
  const Model& model = model_for(*settings, preset);
  const int64_t n_items = state.range(0);
  const Row row = random_row(n_items, model.config().vocab_size);
  const AnswerTokenIds answer{9454, 5349};
  const ScoringMode mode = *parse_scoring_mode(mode_name);
  const int64_t limit = 1 << 20;  // one request per row: request sizing is measured separately

  const double rss_before = proc_status_mb("VmRSS");
  reset_peak_rss();
  int64_t prefill_tokens = 0, requests = 0, generated_tokens = 0;
  for (auto _ : state) {
    if (mode == ScoringMode::Generate) {
      prefill_tokens = run_generate(model, row, generated_tokens);
      requests = 1;
    } else {
      ItemScores scores = score_items(mode, model, answer, row.query, row.items, limit);
      benchmark::DoNotOptimize(scores.scores.data());
      prefill_tokens = scores.prefill_tokens;
      requests = scores.requests;
    }
  }
  const double peak = proc_status_mb("VmHWM");
  state.counters["labels_per_s"] = benchmark::Counter(static_cast<double>(n_items), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["prefill_tokens"] = static_cast<double>(prefill_tokens);
  state.counters["requests"] = static_cast<double>(requests);
  if (mode == ScoringMode::Generate) state.counters["generated_tokens"] = static_cast<double>(generated_tokens);
  state.counters["peak_mb"] = peak;
  state.counters["act_mb"] = std::max(0.0, peak - rss_before);
}

int64_t modelled_tokens(const std::string& mode, int64_t n) {
  if (mode == "independent") return n * (kQueryLen + kItemLen);
  // a decode step reads all weights like a prefill of a few dozen tokens: weigh it as 32
  if (mode == "generate") return kQueryLen + n * (kItemLen + kItemLineExtraTokens) + 32 * n * kAnswerTokensPerItem;
  return 0;
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
    } else if (auto v = value("--max-baseline-tokens")) settings.max_baseline_tokens = std::stoll(*v);
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
        if (modelled_tokens(mode, n) > settings.max_baseline_tokens) continue;
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
