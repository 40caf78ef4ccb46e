// sift review: a local web page over a label store (src/review/): members, one member's
// candidates and scores against the threshold, the calibration curve, and verdicts on labels
// that `sift labels export --reviewed` turns into training rows. Served on sift's HTTP layer
// (src/serve/: deadlines, connection caps); SIGTERM or SIGINT stops it.
#include <fmt/format.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>
#include <pthread.h>
#include <thread>
#include <vector>

#include "apps/cli.h"
#include "apps/model_option.h"
#include "apps/command.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "io/json_parse.h"
#include "review/review_api.h"
#include "review/review_routes.h"
#include "serve/http_server.h"
#include "tokenizer/utf8.h"

namespace {

struct ReviewCliOptions {
  std::string store, model, reference, host = "127.0.0.1", port_file, api_key_file, reviewer;
  std::vector<std::string> allowed_hosts;
  int port = 8100;
  bool reviewing = false;  // --reviewer was given
};

// A request body of the review API is a few ids; a login form, a key.
constexpr int64_t kMaxBodyBytes = 64 * 1024;
constexpr int kHttpThreads = 2;

bool is_valid_utf8(const std::string& text) {
  try {
    sift::utf8::validate(text);
    return true;
  } catch (const sift::Error&) {
    return false;
  }
}

bool is_loopback(const std::string& host) {
  return host == "127.0.0.1" || host == "::1" || host == "localhost" || host.starts_with("127.");
}

nlohmann::json read_labeler(const std::string& model) {
  if (model.empty()) return nullptr;
  const std::string path = model + "/sift.json";
  std::ifstream in(path);
  if (!in) sift::fail("--model: cannot read {}", path);
  nlohmann::json labeler = sift::parse_json(in, path);
  if (!labeler.is_object()) sift::fail("{}: not a JSON object", path);
  return labeler;
}

sift::review::ReferenceLabels read_reference(const std::string& path) {
  if (path.empty()) return {};
  std::vector<sift::RowError> errors;
  sift::review::ReferenceLabels reference = sift::review::ReferenceLabels::read(path, errors);
  for (size_t i = 0; i < errors.size() && i < 10; ++i)
    fmt::print(stderr, "sift review: --reference {}:{}: {} (left out)\n", path, errors[i].line, errors[i].message);
  if (errors.size() > 10) fmt::print(stderr, "sift review: --reference: {} more rows left out\n", errors.size() - 10);
  return reference;
}

void review(const ReviewCliOptions& o) {
  if (o.reviewing && (o.reviewer.empty() || o.reviewer.size() > 100 || !is_valid_utf8(o.reviewer)))
    sift::fail_option("--reviewer: a name of 1 to 100 bytes of UTF-8 is required");
  if (!is_loopback(o.host) && o.api_key_file.empty())
    sift::fail_option("--host {} lets other machines read the store: give --api-key-file too", o.host);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGUSR1);  // from this thread to the stopper: the listener returned by itself
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // received only by the stopper's sigwait

  sift::review::ReviewApiOptions api_options;
  if (o.reviewing) api_options.reviewer = o.reviewer;
  api_options.labeler = read_labeler(o.model.empty() ? o.model : sift::apps::model_directory(o.model));
  api_options.reference = read_reference(o.reference);
  std::unique_ptr<sift::review::ReviewApi> api = sift::review::ReviewApi::open(o.store, std::move(api_options));

  sift::serve::HttpOptions http;
  http.host = o.host;
  http.port = o.port;
  http.io_threads = kHttpThreads;
  http.max_body_bytes = kMaxBodyBytes;
  http.allowed_hosts = o.allowed_hosts;
  if (!o.api_key_file.empty()) http.api_key = sift::serve::ApiKey::load(o.api_key_file);
  sift::review::ReviewRoutes routes(*api, http.api_key);
  sift::serve::Metrics metrics;
  sift::serve::HttpServer server(http, metrics);
  server.serve(routes);
  server.bind();
  fmt::print(stderr, "sift review: http://{}:{}/ ({}; {})\n", o.host, server.port(), o.store,
             o.reviewing ? "verdicts recorded as " + o.reviewer : "read-only: --reviewer NAME records verdicts");
  if (!o.port_file.empty()) sift::write_file_atomically(o.port_file, fmt::format("{}\n", server.port()));

  std::thread stopper([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (received != SIGUSR1) server.stop();
  });
  server.listen();
  pthread_kill(stopper.native_handle(), SIGUSR1);
  stopper.join();
  fmt::print(stderr, "sift review: stopped\n");
}

}  // namespace

SIFT_COMMAND(review) {
  auto o = std::make_shared<ReviewCliOptions>();
  CLI::App* cmd = app.add_subcommand("review", "A local web page to look at stored labels, set the threshold by eye "
                                               "and record verdicts on them");
  cmd->add_option("--store", o->store, "label store: a SQLite file or postgresql://...")->required();
  cmd->add_option("--model", o->model,
                  "labeler directory: its sift.json gives the threshold the pages start at and the calibration "
                  "history (default: the latest run's threshold)");
  cmd->add_option("--reference", o->reference,
                  "labeled rows {id: member, query, items, labels}: counts disagreements per member and draws the "
                  "PR curve")
      ->check(CLI::ExistingFile);
  CLI::Option* reviewer = cmd->add_option(
      "--reviewer", o->reviewer, "record verdicts under this name (opens the store for writing; without it, read-only)");
  cmd->add_option("--host", o->host, "address to listen on (default 127.0.0.1: this machine only; another needs "
                                     "--api-key-file)");
  cmd->add_option("--port", o->port, "port (default 8100); 0: any free port (see --port-file)")
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--port-file", o->port_file, "write the port listened on to this file (atomically, once bound)");
  cmd->add_option("--api-key-file", o->api_key_file,
                  "file holding a key on one line: every page then needs it (the login page sets a cookie), and "
                  "the API \"Authorization: Bearer <key>\" or that cookie")
      ->check(CLI::ExistingFile);
  cmd->add_option("--allowed-host", o->allowed_hosts,
                  "without --api-key-file, a Host name requests may use besides localhost, IP addresses and "
                  "--host, and whose pages may send requests (Origin); repeatable. Behind a proxy, name the "
                  "public host here")
      ->allow_extra_args(false);  // one name a flag; repeated flags add up
  cmd->callback([o, reviewer] {
    o->reviewing = reviewer->count() > 0;
    review(*o);
  });
}
