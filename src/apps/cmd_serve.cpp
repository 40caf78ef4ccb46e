// sift serve: the labeler as an HTTP scoring service (src/serve/): /v1/label, /v1/score
// (SGLang-compatible), /v1/rerank, /health, /v1/models, /metrics. SIGTERM or SIGINT stops
// accepting connections, finishes what is in flight, and exits 0 within
// --shutdown-grace-seconds.
//
// Start-up: bind (--port 0: any free port; a port in use is an error, never shared), log the
// bound port as the first line, write --port-file, then load the model while /health answers 503,
// then run the labeler's self-test probes (scoring/self_test.h): a labeler that fails them is
// never served, and /health answers 503 with the reason until the server is stopped.
#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <pthread.h>
#include <thread>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "core/parallel.h"
#include "io/atomic_file.h"
#include "io/content_hash.h"
#include "scoring/loaded_labeler.h"
#include "scoring/runtime.h"
#include "scoring/self_test.h"
#include "serve/http_server.h"
#include "serve/service.h"

namespace {

struct ServeCliOptions {
  std::string model, host = "127.0.0.1", api_key_file, port_file;
  std::vector<std::string> allowed_hosts, served_model_names;
  std::optional<int> threads;
  int port = 8000, http_threads = 4, workers = 1, max_connections = 10'000, max_connections_per_address = 256;
  int64_t max_queue_tokens = 262144, max_items = 10'000, max_scores = 1'000'000;
  double max_body_mb = 8, max_buffered_mb = 256, max_response_mb = 64;
  double keep_alive_seconds = 5, head_timeout_seconds = 10, body_timeout_seconds = 60, shutdown_grace_seconds = 30;
  // --weights, --max-batch-tokens (default kServeMaxBatchTokens), --kv-cache-mb, --long-items and its windows
  sift::apps::ScoringFlags scoring;
};

int64_t mebibytes(double mb) { return static_cast<int64_t>(mb * 1024 * 1024); }

// Blocks SIGTERM and SIGINT in this thread and every thread started after, so they are only
// received by sigwait in the stopper.
sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

sift::serve::HttpOptions http_options(const ServeCliOptions& o) {
  using sift::serve::Seconds;
  sift::serve::HttpOptions http;
  http.host = o.host;
  http.port = o.port;
  http.io_threads = o.http_threads;
  http.max_connections = o.max_connections;
  http.max_connections_per_address = o.max_connections_per_address;
  http.keep_alive = Seconds(o.keep_alive_seconds);
  http.head_timeout = Seconds(o.head_timeout_seconds);
  http.body_timeout = Seconds(o.body_timeout_seconds);
  http.shutdown_grace = Seconds(o.shutdown_grace_seconds);
  http.max_body_bytes = mebibytes(o.max_body_mb);
  http.max_buffered_body_bytes = mebibytes(o.max_buffered_mb);
  if (http.max_buffered_body_bytes < http.max_body_bytes)
    sift::apps::usage_error("--max-buffered-mb {} is less than --max-body-mb {}: no body that size could be read",
                            o.max_buffered_mb, o.max_body_mb);
  if (!o.api_key_file.empty()) http.api_key = sift::serve::ApiKey::load(o.api_key_file);
  http.allowed_hosts = o.allowed_hosts;
  return http;
}

// The names requests may give as "model" and /v1/models lists: --served-model-name (as vLLM's,
// in place of the directory's name), else the --model directory's name, or a Hub model's id
// (its snapshot folder's name is a commit).
std::vector<std::string> served_names(const ServeCliOptions& o) {
  for (size_t i = 0; i < o.served_model_names.size(); ++i) {
    const std::string& name = o.served_model_names[i];  // never empty: the CLI refuses an empty value
    for (size_t j = 0; j < i; ++j)
      if (o.served_model_names[j] == name) sift::apps::usage_error("--served-model-name: \"{}\" is given twice", name);
  }
  if (!o.served_model_names.empty()) return o.served_model_names;
  if (sift::apps::is_hub_model(o.model)) return {o.model};
  const std::string name = std::filesystem::path(o.model).lexically_normal().filename().string();
  return {name.empty() ? o.model : name};
}

// The compute threads of the engines: --threads, else the global --threads, else every core;
// a usage error when fewer than --workers (each worker runs on threads of its own).
int compute_threads(const ServeCliOptions& o) {
  const int threads = sift::apps::thread_count("--threads", o.threads);
  const int total = sift::resolve_threads(threads);
  if (o.workers > total)
    sift::apps::usage_error("--workers {} is more than the {} compute threads (--threads, else the cores): each worker "
                            "needs one of its own", o.workers, total);
  return threads;
}

void serve(const ServeCliOptions& o) {
  const int threads = compute_threads(o);
  const std::vector<std::string> model_names = served_names(o);
  const sigset_t signals = block_stop_signals();
  sift::serve::Metrics metrics;
  sift::serve::HttpServer server(http_options(o), metrics);
  server.bind();  // before the model loads: a port in use fails at once
  // Before the model loads, so a client (a test on --port 0) can find the port at once and see
  // /health say "loading"; the log line first, so it is there once the port file is.
  fmt::print(stderr, "sift serve: listening on http://{}:{}; loading {}\n", o.host, server.port(), o.model);
  if (server.max_connections() < o.max_connections)
    fmt::print(stderr, "sift serve: warning: --max-connections {} lowered to {} (the open-file limit)\n",
               o.max_connections, server.max_connections());
  if (!o.port_file.empty()) sift::write_file_atomically(o.port_file, fmt::format("{}\n", server.port()));
  std::thread listener([&] { server.listen(); });

  // The stopper: on the first signal, stop; the listener then finishes in-flight requests and returns.
  // stop_everything wakes it with a signal of its own once `stopping` is set: no line then, as
  // no signal came from outside (a load that failed, the listener returning).
  std::atomic<bool> stopping{false};
  std::thread stopper([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (!stopping.exchange(true))
      fmt::print(stderr, "sift serve: signal {}: finishing in-flight requests\n", received);
    server.stop();
  });
  const auto stop_everything = [&] {
    if (!stopping.exchange(true)) pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
    if (listener.joinable()) listener.join();
  };

  std::unique_ptr<sift::LoadedLabeler> engine;
  std::optional<sift::Runtime> runtime;  // before the service, which uses it until it goes
  std::optional<sift::serve::Service> service;
  std::optional<std::string> refusal;
  std::string model_dir;  // o.model, or a Hub id's snapshot in the Hugging Face cache
  try {
    const sift::WeightStorage weights = o.scoring.weight_storage();
    model_dir = sift::apps::model_directory(o.model);
    engine = sift::LoadedLabeler::load(model_dir, weights);
    sift::LocalEngine probes(engine->model(), threads);
    refusal = sift::self_test_refusal(*engine, probes, sift::probe_arithmetic(weights));
  } catch (...) {
    stop_everything();
    throw;
  }
  if (refusal) {
    // Up but unhealthy: /health says why (an orchestrator sees it), nothing is scored.
    server.refuse(*refusal);
    fmt::print(stderr, "sift serve: error: {}; /health and every scoring route answer 503 with this reason\n",
               *refusal);
    listener.join();
    stop_everything();
    fmt::print(stderr, "sift serve: stopped\n");
    return;
  }
  try {
    runtime.emplace(std::move(engine),
                    sift::RuntimeOptions{.threads = threads, .query_cache_bytes = o.scoring.query_cache_bytes(), .remote = {}});
    service.emplace(*runtime,
                    sift::serve::ServiceOptions{.model_names = model_names,
                                                .fingerprint = sift::artifact_fingerprint(model_dir),
                                                .weights = o.scoring.weights,
                                                .max_batch_tokens = o.scoring.max_batch_tokens.value_or(
                                                    sift::apps::kServeMaxBatchTokens),
                                                .max_queue_tokens = o.max_queue_tokens,
                                                .workers = o.workers,
                                                .prepare_threads = o.http_threads,
                                                .admission = {.max_items = o.max_items,
                                                              .max_scores = o.max_scores,
                                                              .max_response_bytes = mebibytes(o.max_response_mb)},
                                                .long_items = o.scoring.long_items_choice(),
                                                .max_item_tokens = o.scoring.max_item_tokens,
                                                .window_stride = o.scoring.window_stride,
                                                .max_windows = o.scoring.max_windows},
                    metrics);
  } catch (...) {
    stop_everything();
    throw;
  }
  server.attach(*service);
  fmt::print(stderr, "sift serve: ready: {} (version {}) on http://{}:{}\n", o.model, runtime->labeler().artifact().version, o.host,
             server.port());
  listener.join();  // returns once stopped: in-flight requests answered, or the grace period over
  stop_everything();
  service->drain();
  fmt::print(stderr, "sift serve: stopped\n");
}

}  // namespace

SIFT_COMMAND(serve) {
  auto o = std::make_shared<ServeCliOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve a labeler over HTTP: /v1/label, /v1/score, /v1/rerank, /metrics");
  cmd->add_option("--model", o->model, "labeler directory (config.json, weights, tokenizer.json, sift.json) or Hugging Face Hub id org/name[@revision]")->required();
  cmd->add_option("--host", o->host, "address to listen on (default 127.0.0.1: this machine only)");
  cmd->add_option("--port", o->port,
                  "port (default 8000); 0: any free port (see --port-file; the log's first line says which). "
                  "One in use is an error, never shared")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--port-file", o->port_file,
                  "write the port listened on to this file (atomically, once bound, before the model loads)");
  cmd->add_option("--threads", o->threads,
                  "compute threads of the engines, all workers together, >= 1 (default: the global --threads, else all cores; capped as "
                  "--threads)")
      ->check(sift::apps::kThreadCount);
  cmd->add_option("--workers", o->workers,
                  "engines scoring at once, each a session (its own KV cache and workspace) on the one loaded model; "
                  "the compute threads are split among those busy (default 1). More workers answer concurrent "
                  "requests side by side; at most --threads")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--http-threads", o->http_threads,
                  "threads that read, parse and write requests for every connection, and as many that render and "
                  "tokenize them (default 4); connections are bounded by --max-connections, not by threads")
      ->check(CLI::Range(1, 256));
  cmd->add_option("--max-connections", o->max_connections,
                  "connections open at once; past it a new one gets 503 and is closed (default 10000; lowered to "
                  "fit the open-file limit)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--max-connections-per-address", o->max_connections_per_address,
                  "connections open at once from one client address; past it 503 and close (default 256)")
      ->check(CLI::Range(1, 1'000'000));
  cmd->add_option("--keep-alive-seconds", o->keep_alive_seconds,
                  "an idle connection is closed when no request starts within this (default 5)")
      ->check(sift::apps::decimal_in(0.001, 86400));
  cmd->add_option("--head-timeout-seconds", o->head_timeout_seconds,
                  "a request's head (request line and headers) must arrive within this of its first byte, in all; "
                  "else the connection is closed (default 10)")
      ->check(sift::apps::decimal_in(0.001, 86400));
  cmd->add_option("--body-timeout-seconds", o->body_timeout_seconds,
                  "a request's body must arrive, and a response be taken by the client, within this, in all; else "
                  "the connection is closed (default 60)")
      ->check(sift::apps::decimal_in(0.001, 86400));
  cmd->add_option("--shutdown-grace-seconds", o->shutdown_grace_seconds,
                  "on SIGTERM, requests in flight get this long to be answered; then every connection is closed "
                  "and queued work dropped, and the server exits once the running forward call ends (default 30)")
      ->check(sift::apps::decimal_in(0, 86400));
  cmd->add_option("--max-queue-tokens", o->max_queue_tokens,
                  "prompt tokens allowed to wait; past it requests get 429 (default 262144)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-items", o->max_items,
                  "items (documents) of one request; more get 413 before anything is tokenized (default 10000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--max-scores", o->max_scores,
                  "numbers one /v1/score response holds: items x label_token_ids; more get 413 before anything is "
                  "tokenized (default 1000000)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  cmd->add_option("--max-response-mb", o->max_response_mb,
                  "largest response in MiB, bounded from the request before it is tokenized; larger get 413 "
                  "(default 64)")
      ->check(sift::apps::decimal_in(0.001, 65536));
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Serve, o->scoring);
  cmd->add_option("--api-key-file", o->api_key_file,
                  "file holding the API key, on one line: every route but /health then needs \"Authorization: "
                  "Bearer <key>\"")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-body-mb", o->max_body_mb, "largest request body in MiB; larger get 413 (default 8)")
      ->check(sift::apps::decimal_in(0.001, 1024));
  cmd->add_option("--max-buffered-mb", o->max_buffered_mb,
                  "request bodies held at once, all connections together, in MiB (counted from Content-Length, or "
                  "chunk by chunk, before the body is read); past it a request gets 503 with Retry-After "
                  "(default 256; at least --max-body-mb)")
      ->check(sift::apps::decimal_in(0.001, 1048576));
  cmd->add_option("--allowed-host", o->allowed_hosts,
                  "without --api-key-file, a Host name requests may use besides localhost, IP addresses and "
                  "--host, and whose pages may send requests (Origin); repeatable. A server behind a proxy names "
                  "its public host here")
      ->allow_extra_args(false);  // one name a flag; repeated flags add up
  cmd->add_option("--served-model-name", o->served_model_names,
                  "a name requests may give as \"model\", listed by /v1/models in place of the --model directory's "
                  "name (as vLLM's flag); repeatable, or several after one flag");
  cmd->callback([o] { serve(*o); });
}
