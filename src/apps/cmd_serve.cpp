// sift serve: the labeler as an HTTP scoring service (src/serve/): /v1/label, /v1/score
// (SGLang-compatible), /v1/rerank, /health, /v1/models, /metrics. SIGTERM or SIGINT stops
// accepting connections, finishes what is in flight, and exits 0.
//
// Start-up: bind (--port 0: any free port), write --port-file, log the bound port as the
// first line, then load the model while /health answers 503.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <pthread.h>
#include <thread>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/weights_option.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "scoring/loaded_labeler.h"
#include "serve/http_server.h"
#include "serve/service.h"

namespace {

struct ServeCliOptions {
  std::string model, host = "127.0.0.1", api_key_file, weights = "auto", port_file;
  std::optional<int> threads;
  int port = 8000, http_threads = 64;
  int64_t max_batch_tokens = 8192, max_queue_tokens = 262144;
  double kv_cache_mb = 256, max_body_mb = 8;
};

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

void serve(const ServeCliOptions& o) {
  const sigset_t signals = block_stop_signals();
  sift::serve::Metrics metrics;
  sift::serve::HttpOptions http;
  http.host = o.host;
  http.port = o.port;
  http.http_threads = o.http_threads;
  http.max_body_bytes = static_cast<int64_t>(o.max_body_mb * 1024 * 1024);
  if (!o.api_key_file.empty()) http.api_key = sift::serve::ApiKey::load(o.api_key_file);
  sift::serve::HttpServer server(http, metrics);
  server.bind();
  // Before the model loads, so a client (a test on --port 0) can find the port at once and see
  // /health say "loading"; the log line first, so it is there once the port file is.
  fmt::print(stderr, "sift serve: listening on http://{}:{}; loading {}\n", o.host, server.port(), o.model);
  if (!o.port_file.empty()) sift::write_file_atomically(o.port_file, fmt::format("{}\n", server.port()));
  std::thread listener([&] { server.listen(); });

  // The stopper: on the first signal, stop accepting; the listener then finishes in-flight
  // requests and returns.
  std::atomic<bool> stopping{false};
  std::thread stopper([&] {
    int received = 0;
    sigwait(&signals, &received);
    stopping = true;
    fmt::print(stderr, "sift serve: signal {}: finishing in-flight requests\n", received);
    for (int i = 0; i < 500 && !server.running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    server.stop();
  });
  const auto stop_everything = [&] {
    if (!stopping.exchange(true)) pthread_kill(stopper.native_handle(), SIGTERM);
    stopper.join();
    listener.join();
  };

  std::unique_ptr<sift::LoadedLabeler> engine;
  std::optional<sift::serve::Service> service;
  try {
    engine = sift::LoadedLabeler::load(o.model, sift::apps::weight_storage_of(o.weights));
    const std::string name = std::filesystem::path(o.model).lexically_normal().filename().string();
    service.emplace(*engine,
                    sift::serve::ServiceOptions{.model_name = name.empty() ? o.model : name,
                                                .max_batch_tokens = o.max_batch_tokens,
                                                .max_queue_tokens = o.max_queue_tokens,
                                                .kv_cache_bytes = static_cast<int64_t>(o.kv_cache_mb * 1024 * 1024),
                                                .threads = sift::apps::thread_count("--threads", o.threads)},
                    metrics);
  } catch (...) {
    stop_everything();
    throw;
  }
  server.attach(*service);
  fmt::print(stderr, "sift serve: ready: {} (version {}) on http://{}:{}\n", o.model, engine->artifact().version, o.host,
             server.port());
  listener.join();  // returns once stopped, after in-flight requests are answered
  if (!stopping.exchange(true)) pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  service->drain();
  fmt::print(stderr, "sift serve: stopped\n");
}

}  // namespace

SIFT_COMMAND(serve) {
  auto o = std::make_shared<ServeCliOptions>();
  CLI::App* cmd = app.add_subcommand("serve", "Serve a labeler over HTTP: /v1/label, /v1/score, /v1/rerank, /metrics");
  cmd->add_option("--model", o->model, "labeler directory: config.json, weights, tokenizer.json, sift.json")->required();
  cmd->add_option("--host", o->host, "address to listen on (default 127.0.0.1: this machine only)");
  cmd->add_option("--port", o->port, "port (default 8000); 0: any free port (see --port-file; the log's first line says which)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--port-file", o->port_file,
                  "write the port listened on to this file (atomically, once bound, before the model loads)");
  cmd->add_option("--threads", o->threads,
                  "compute threads of the engine, >= 1 (default: the global --threads, else all cores; capped as "
                  "--threads)")
      ->check(sift::apps::kThreadCount);
  cmd->add_option("--http-threads", o->http_threads, "connections served at once (default 64)")->check(CLI::Range(1, 4096));
  cmd->add_option("--max-batch-tokens", o->max_batch_tokens,
                  "most new tokens of one forward call; queued requests are packed up to it, and it is each "
                  "request's limit too (a row is split into requests that fit; a query with one item longer than "
                  "it gets 400). Default 8192, not sift score's 64 MiB activation budget: a call holds several "
                  "clients' requests, each answered when the call ends")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-queue-tokens", o->max_queue_tokens,
                  "prompt tokens allowed to wait; past it requests get 429 (default 262144)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--kv-cache-mb", o->kv_cache_mb, "query-KV cache budget in MiB; 0 turns it off (default 256)")
      ->check(sift::apps::decimal_in(0, 1048576));
  cmd->add_option("--api-key-file", o->api_key_file,
                  "file holding the API key: every route but /health then needs \"Authorization: Bearer <key>\"")
      ->check(CLI::ExistingFile);
  cmd->add_option("--max-body-mb", o->max_body_mb, "largest request body in MiB; larger get 413 (default 8)")
      ->check(sift::apps::decimal_in(0.001, 1024));
  sift::apps::add_weights_option(cmd, o->weights);
  cmd->callback([o] { serve(*o); });
}
