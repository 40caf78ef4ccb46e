// llama.cpp's side of bench/vs_llama_cpp.sh: YES/NO scoring through llama.cpp's C API (libllama),
// on the same token ids that sift scores.
//
//   llama_score logits --model M.gguf --ids 1,2,3 [--vocab Y,N] [--threads T]
//       One causal prompt at positions 0..T-1; prints {"pos": T-1, "logits": [...]} like
//       `sift logits` (the vocab rows asked for, in order). KV cache in F32 for parity.
//   llama_score score --model M.gguf --prompts FILE --yes Y --no N --layout mis|prefix
//                     [--batch 16] [--flash on|off] [--ubatch 512] [--kv f16|f32] [--repeat R] [--threads T]
//       FILE: line 1 the query's ids, then one line of ids per item (space-separated); the row is
//       scored R times (as sift scores R copies of it), the KV cache cleared each time.
//       Prints one JSON line: {"layout", "flash", "items", "repeat", "seconds", "cpu_seconds",
//       "labels_per_s", "load_seconds", "scores": [P(yes) per item]}, score = 1 / (1 + exp(l_no -
//       l_yes)) at the item's last token. "seconds" is the scoring only: query prefill + items +
//       logits read, after the model is loaded (no mmap: weights read into memory at load) and a
//       warm-up; "cpu_seconds" the CPU time of all the process's threads over the same span.
//
// Layouts (both: unified KV cache, the query's KV computed once as sequence 0, each item its own
// sequence whose cells are the query's (llama_memory_seq_cp shares them, no copy) plus its own,
// item positions restarting at Lq, logits only at each item's last token):
//   mis:    all items in one llama_decode (at most 255 sequences per call: LLAMA_MAX_SEQ - 1).
//   prefix: --batch items per llama_decode; their sequences are removed after each call.
// llama.cpp builds a mask over every cell in the cache for each micro-batch of --ubatch tokens
// (n_tokens x n_kv), so attention work is not the sum of what each token sees, as in sift.
#include <llama.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr int kMaxItemSequences = 255;  // LLAMA_MAX_SEQ (256) minus the query's sequence 0

[[noreturn]] void fail(const std::string& message) {
  throw std::runtime_error(message);
}

// --flag value pairs after the subcommand.
std::map<std::string, std::string> parse_flags(int argc, char** argv) {
  std::map<std::string, std::string> flags;
  for (int i = 2; i < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag.rfind("--", 0) != 0 || i + 1 >= argc) fail("expected --flag value pairs, got \"" + flag + "\"");
    flags[flag.substr(2)] = argv[i + 1];
  }
  return flags;
}

std::string flag_or(const std::map<std::string, std::string>& flags, const std::string& name, const std::string& fallback) {
  auto it = flags.find(name);
  return it == flags.end() ? fallback : it->second;
}

std::string required(const std::map<std::string, std::string>& flags, const std::string& name) {
  auto it = flags.find(name);
  if (it == flags.end()) fail("--" + name + " is required");
  return it->second;
}

int to_int(const std::string& text, const std::string& what) {
  size_t used = 0;
  int value = 0;
  try {
    value = std::stoi(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) fail(what + ": \"" + text + "\" is not an integer");
  return value;
}

std::vector<llama_token> parse_ids(const std::string& text, char separator, const std::string& what) {
  std::vector<llama_token> ids;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, separator))
    if (!item.empty()) ids.push_back(to_int(item, what));
  return ids;
}

// Query ids on the first line, one item per following line.
struct Prompts {
  std::vector<llama_token> query;
  std::vector<std::vector<llama_token>> items;
};

Prompts read_prompts(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path + ": cannot open");
  Prompts prompts;
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::vector<llama_token> ids = parse_ids(line, ' ', path + ":" + std::to_string(line_number));
    if (ids.empty()) fail(path + ":" + std::to_string(line_number) + ": no token ids");
    if (line_number == 1) prompts.query = std::move(ids);
    else prompts.items.push_back(std::move(ids));
  }
  if (prompts.query.empty() || prompts.items.empty()) fail(path + ": expected a query line and at least one item line");
  return prompts;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of all the process's threads, in seconds.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void quiet_log(ggml_log_level level, const char* text, void*) {
  if (level >= GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
}

struct Model {
  llama_model* model = nullptr;
  int32_t n_vocab = 0;
  double load_seconds = 0;

  explicit Model(const std::string& path) {
    const auto start = std::chrono::steady_clock::now();
    llama_model_params params = llama_model_default_params();
    params.load_mode = LLAMA_LOAD_MODE_NONE;  // read into memory now, as sift packs its weights at load
    model = llama_model_load_from_file(path.c_str(), params);
    if (!model) fail(path + ": llama.cpp could not load the model");
    n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
    load_seconds = seconds_since(start);
  }
  ~Model() { llama_model_free(model); }

  void check_ids(const std::vector<llama_token>& ids, const std::string& where) const {
    for (llama_token id : ids)
      if (id < 0 || id >= n_vocab) fail(where + ": token id " + std::to_string(id) + " is outside the vocabulary of " + std::to_string(n_vocab));
  }
};

struct ContextOptions {
  uint32_t n_ctx, n_batch, n_ubatch;
  int threads;
  bool flash;
  ggml_type kv_type;
};

llama_context* make_context(const Model& model, const ContextOptions& o) {
  llama_context_params params = llama_context_default_params();
  params.n_ctx = o.n_ctx;
  params.n_batch = o.n_batch;
  params.n_ubatch = o.n_ubatch;
  params.n_seq_max = 1;      // with kv_unified every sequence id < LLAMA_MAX_SEQ shares the one cache
  params.kv_unified = true;  // items see the query's cells, not a copy per sequence
  params.n_threads = params.n_threads_batch = o.threads;
  params.flash_attn_type = o.flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  params.type_k = params.type_v = o.kv_type;
  params.no_perf = true;
  llama_context* ctx = llama_init_from_model(model.model, params);
  if (!ctx) fail("llama.cpp could not create a context (n_ctx " + std::to_string(o.n_ctx) + ")");
  return ctx;
}

// A batch of token runs, each at consecutive positions from `first_pos` in one sequence.
class Batch {
 public:
  explicit Batch(int32_t capacity) : batch_(llama_batch_init(capacity, 0, 1)), capacity_(capacity) {}
  ~Batch() { llama_batch_free(batch_); }
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;

  void clear() { batch_.n_tokens = 0; }
  // Appends ids at positions first_pos.. in sequence seq; the last token outputs logits if asked.
  // Returns the batch index of the last token.
  int32_t add(const std::vector<llama_token>& ids, llama_pos first_pos, llama_seq_id seq, bool logits_at_last) {
    if (batch_.n_tokens + int32_t(ids.size()) > capacity_) fail("internal: batch capacity exceeded");
    for (size_t t = 0; t < ids.size(); ++t) {
      const int32_t i = batch_.n_tokens++;
      batch_.token[i] = ids[t];
      batch_.pos[i] = first_pos + llama_pos(t);
      batch_.n_seq_id[i] = 1;
      batch_.seq_id[i][0] = seq;
      batch_.logits[i] = logits_at_last && t + 1 == ids.size();
    }
    return batch_.n_tokens - 1;
  }
  void decode(llama_context* ctx, const char* what) const {
    const int32_t status = llama_decode(ctx, batch_);
    if (status != 0) fail(std::string("llama_decode failed (") + what + ", status " + std::to_string(status) + ")");
  }

 private:
  llama_batch batch_;
  int32_t capacity_;
};

double yes_probability(llama_context* ctx, int32_t batch_index, llama_token yes, llama_token no) {
  const float* logits = llama_get_logits_ith(ctx, batch_index);
  if (!logits) fail("no logits at batch index " + std::to_string(batch_index));
  return 1.0 / (1.0 + std::exp(double(logits[no]) - double(logits[yes])));
}

int run_logits(const std::map<std::string, std::string>& flags) {
  Model model(required(flags, "model"));
  const std::vector<llama_token> ids = parse_ids(required(flags, "ids"), ',', "--ids");
  if (ids.empty()) fail("--ids: empty");
  model.check_ids(ids, "--ids");
  std::vector<llama_token> vocab = parse_ids(flag_or(flags, "vocab", ""), ',', "--vocab");
  model.check_ids(vocab, "--vocab");
  if (vocab.empty())
    for (llama_token v = 0; v < model.n_vocab; ++v) vocab.push_back(v);
  const auto n = uint32_t(ids.size());
  llama_context* ctx = make_context(model, {n, n, n, to_int(flag_or(flags, "threads", "2"), "--threads"), false, GGML_TYPE_F32});
  Batch batch{int32_t(n)};
  const int32_t last = batch.add(ids, 0, 0, true);
  batch.decode(ctx, "prompt");
  const float* logits = llama_get_logits_ith(ctx, last);
  std::printf("{\"pos\": %d, \"logits\": [", last);
  for (size_t v = 0; v < vocab.size(); ++v) std::printf("%s%.9g", v ? ", " : "", logits[vocab[v]]);
  std::printf("]}\n");
  llama_free(ctx);
  return 0;
}

// Scores all items against the query: query once (sequence 0), then items in groups of
// `group` sequences per llama_decode, each group's sequences removed after its call.
std::vector<double> score_items(llama_context* ctx, const Prompts& p, int group, llama_token yes, llama_token no) {
  llama_memory_t memory = llama_get_memory(ctx);
  llama_memory_clear(memory, true);
  const auto query_len = llama_pos(p.query.size());
  size_t longest_item = 0;
  for (const auto& item : p.items) longest_item = std::max(longest_item, item.size());
  Batch batch(int32_t(std::max(p.query.size(), size_t(group) * longest_item)));
  batch.add(p.query, 0, 0, false);
  batch.decode(ctx, "query");

  std::vector<double> scores(p.items.size());
  std::vector<int32_t> last_index(group);
  for (size_t first = 0; first < p.items.size(); first += size_t(group)) {
    const size_t count = std::min(size_t(group), p.items.size() - first);
    batch.clear();
    for (size_t k = 0; k < count; ++k) {
      const llama_seq_id seq = llama_seq_id(k + 1);
      llama_memory_seq_cp(memory, 0, seq, -1, -1);  // the item's sequence sees the query's cells
      last_index[k] = batch.add(p.items[first + k], query_len, seq, true);
    }
    batch.decode(ctx, "items");
    for (size_t k = 0; k < count; ++k) {
      scores[first + k] = yes_probability(ctx, last_index[k], yes, no);
      llama_memory_seq_rm(memory, llama_seq_id(k + 1), -1, -1);
    }
  }
  return scores;
}

int run_score(const std::map<std::string, std::string>& flags) {
  const std::string model_path = required(flags, "model");
  const Prompts prompts = read_prompts(required(flags, "prompts"));
  const llama_token yes = to_int(required(flags, "yes"), "--yes"), no = to_int(required(flags, "no"), "--no");
  const std::string layout = required(flags, "layout");
  const std::string flash = flag_or(flags, "flash", "on"), kv = flag_or(flags, "kv", "f16");
  if (layout != "mis" && layout != "prefix") fail("--layout: expected mis or prefix, got \"" + layout + "\"");
  if (flash != "on" && flash != "off") fail("--flash: expected on or off, got \"" + flash + "\"");
  if (kv != "f16" && kv != "f32") fail("--kv: expected f16 or f32, got \"" + kv + "\"");
  const int group = layout == "mis" ? std::min(kMaxItemSequences, int(prompts.items.size()))
                                    : to_int(flag_or(flags, "batch", "16"), "--batch");
  if (group < 1 || group > kMaxItemSequences) fail("--batch: expected 1.." + std::to_string(kMaxItemSequences));

  Model model(model_path);
  model.check_ids(prompts.query, "query");
  for (const auto& item : prompts.items) model.check_ids(item, "item");
  model.check_ids({yes, no}, "--yes/--no");

  // Cells: the query plus the items of one group; a batch holds the query or one group.
  size_t longest_item = 0;
  for (const auto& item : prompts.items) longest_item = std::max(longest_item, item.size());
  const auto group_tokens = uint32_t(size_t(group) * longest_item);
  const auto n_ctx = uint32_t(prompts.query.size()) + group_tokens;
  const auto n_batch = std::max(uint32_t(prompts.query.size()), group_tokens);
  const auto n_ubatch = std::min(n_batch, uint32_t(to_int(flag_or(flags, "ubatch", "512"), "--ubatch")));
  llama_context* ctx = make_context(model, {n_ctx, n_batch, n_ubatch, to_int(flag_or(flags, "threads", "2"), "--threads"),
                                            flash == "on", kv == "f16" ? GGML_TYPE_F16 : GGML_TYPE_F32});

  // Warm-up: one short prefill (first touches of the compute buffers and thread pool).
  {
    const std::vector<llama_token> head(prompts.query.begin(), prompts.query.begin() + std::min<size_t>(32, prompts.query.size()));
    Batch warm(int32_t(head.size()));
    warm.add(head, 0, 0, true);
    warm.decode(ctx, "warm-up");
  }
  const int repeat = to_int(flag_or(flags, "repeat", "1"), "--repeat");
  if (repeat < 1) fail("--repeat: expected a positive integer");
  std::vector<double> scores;
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  for (int r = 0; r < repeat; ++r) scores = score_items(ctx, prompts, group, yes, no);
  const double seconds = seconds_since(start);
  const double cpu_seconds = process_cpu_seconds() - cpu_start;

  std::printf("{\"layout\": \"%s\", \"flash\": \"%s\", \"kv\": \"%s\", \"batch\": %d, \"ubatch\": %u, \"items\": %zu, "
              "\"repeat\": %d, \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"labels_per_s\": %.6f, \"load_seconds\": %.3f, "
              "\"scores\": [",
              layout.c_str(), flash.c_str(), kv.c_str(), group, n_ubatch, scores.size(), repeat, seconds, cpu_seconds,
              double(scores.size()) * repeat / seconds, model.load_seconds);
  for (size_t i = 0; i < scores.size(); ++i) std::printf("%s%.9g", i ? ", " : "", scores[i]);
  std::printf("]}\n");
  llama_free(ctx);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  try {
    if (command != "logits" && command != "score")
      fail("usage: llama_score logits|score --model M.gguf ... (see the comment at the top of llama_score.cpp)");
    const auto flags = parse_flags(argc, argv);
    llama_log_set(quiet_log, nullptr);
    llama_backend_init();
    const int status = command == "logits" ? run_logits(flags) : run_score(flags);
    llama_backend_free();
    return status;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llama_score %s: %s\n", command.c_str(), e.what());
    return 1;
  }
}
