// sift loadgen: open-loop Poisson load against a running `sift serve` (serve/loadgen.h).
// Rows are `sift score` input lines {"query", "items": [str | {"text"}]}; each becomes one
// request of the chosen route. Prints one JSON object: achieved labels/s, p50/p90/p99
// latency, error counts, rows left out; with --find-max, the highest rate that holds
// p99 <= --p99-ms. A bad row is a warning naming file:line, and the others are sent.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "apps/cli.h"
#include "apps/command.h"
#include "apps/max_line_bytes_option.h"
#include "apps/scoring_flags.h"
#include "core/error.h"
#include "io/input_file.h"
#include "io/line_reader.h"
#include "formats/score_io.h"
#include "serve/loadgen.h"

namespace {

// Request bodies kept from --rows (cycled through): rows past this many bytes are not read.
constexpr int64_t kMaxRequestBytes = int64_t(256) << 20;

struct LoadgenCliOptions {
  std::string url, rows, route = "label", api_key_file;
  double rate = 1, duration = 10, p99_ms = 1000;
  int connections = 32, bisect_steps = 4;
  uint64_t seed = 1;
  bool find_max = false, closed_loop = false, strict = false;
  std::vector<int32_t> label_token_ids;
  std::optional<int64_t> timeout_ms;
  int64_t max_line_bytes = sift::kDefaultMaxLineBytes;
  sift::apps::ScoringFlags scoring;  // --mode
};

// The request body of one row for the route.
sift::serve::LoadRequest request_of(const sift::ScoringRow& row, const LoadgenCliOptions& o) {
  nlohmann::json body = {{"query", row.query}};
  if (o.route == "label") {
    body["items"] = row.items;
    if (o.scoring.mode) body["mode"] = *o.scoring.mode;
  } else if (o.route == "rerank") {
    body["documents"] = row.items;
  } else {
    body["items"] = row.items;
    body["label_token_ids"] = o.label_token_ids;
    body["apply_softmax"] = true;
  }
  if (o.timeout_ms) body["timeout_ms"] = *o.timeout_ms;
  return {body.dump(), static_cast<int64_t>(row.items.size())};
}

// The request of each row of --rows (lines by the one line rule, io/line_reader.h), up to
// kMaxRequestBytes of bodies; a bad row (a line over --max-line-bytes too) is warned about
// ("file:line: what (row left out)") and counted in `left_out`.
std::vector<sift::serve::LoadRequest> read_requests(const LoadgenCliOptions& o, int64_t& left_out) {
  sift::InputFile input(o.rows);
  sift::LineReader reader(input.stream(), o.max_line_bytes);
  std::vector<sift::serve::LoadRequest> requests;
  int64_t bytes = 0;
  for (sift::InputLine line; reader.next(line);) {
    if (!line.too_long && line.text.find_first_not_of(" \t") == std::string::npos) continue;
    try {
      if (line.too_long) sift::fail("{}", sift::too_long_line_message(line, o.max_line_bytes));
      requests.push_back(request_of(sift::parse_scoring_row(line.text), o));
    } catch (const sift::Error& e) {
      sift::apps::warn("sift loadgen", fmt::format("{}:{}: {} (row left out)", o.rows, line.number, e.what()));
      ++left_out;
      continue;
    }
    if ((bytes += int64_t(requests.back().body.size())) >= kMaxRequestBytes) {
      sift::apps::warn("sift loadgen", fmt::format("{}: the first {} rows hold {} MiB of requests: the rest is not read",
                                                   o.rows, requests.size(), kMaxRequestBytes >> 20));
      break;
    }
  }
  if (requests.empty()) sift::fail("{}: no rows to send", o.rows);
  return requests;
}

std::string read_key(const std::string& file) {
  std::ifstream in(file);
  if (!in) sift::fail("{}: cannot read the API key file", file);
  std::string key;
  in >> key;
  return key;
}

}  // namespace

SIFT_COMMAND(loadgen) {
  auto o = std::make_shared<LoadgenCliOptions>();
  CLI::App* cmd = app.add_subcommand("loadgen", "Open-loop Poisson load against `sift serve`: labels/s and latency percentiles");
  cmd->add_option("--url", o->url, "server, e.g. http://127.0.0.1:8000")->required();
  cmd->add_option("--rows", o->rows, "JSON-lines rows {\"query\", \"items\"} (sift score input); one request each, cycled")
      ->required()->check(CLI::ExistingFile);
  sift::apps::add_max_line_bytes_option(cmd, o->max_line_bytes, "a longer row is left out, with a warning naming it");
  cmd->add_option("--route", o->route, "label (default) | score | rerank")->check(CLI::IsMember({"label", "score", "rerank"}));
  cmd->add_option("--rate", o->rate,
                  fmt::format("arrivals per second (with --find-max: the first rate tried); rate x duration at most "
                              "{:.0f} requests per run",
                              sift::serve::kMaxRequestsPerRun))
      ->check(sift::apps::positive_decimal(sift::serve::kMaxRequestsPerRun));
  cmd->add_option("--duration", o->duration, "seconds of arrivals per run (default 10)")
      ->check(sift::apps::positive_decimal(sift::serve::kMaxDurationSeconds));
  cmd->add_option("--connections", o->connections, "concurrent connections (default 32)")->check(CLI::Range(1, 1024));
  cmd->add_option("--seed", o->seed, "seed of the arrival times (default 1)");
  sift::apps::add_scoring_flags(cmd, sift::apps::Command::Loadgen, o->scoring);
  cmd->add_option("--label-token-ids", o->label_token_ids, "score route: label_token_ids of each request, e.g. 9454,2753 (required there)")
      ->delimiter(',');
  cmd->add_option("--timeout-ms", o->timeout_ms, "deadline sent with each request")->check(CLI::PositiveNumber);
  cmd->add_option("--api-key-file", o->api_key_file, "send \"Authorization: Bearer <key>\"")->check(CLI::ExistingFile);
  CLI::Option* closed_loop = cmd->add_flag(
      "--closed-loop", o->closed_loop,
      "instead of Poisson arrivals, each connection sends back to back for --duration (saturation)");
  cmd->add_flag("--find-max", o->find_max, "search the highest rate whose p99 stays within --p99-ms")->excludes(closed_loop);
  cmd->add_option("--p99-ms", o->p99_ms, "p99 target of --find-max in ms (default 1000)")
      ->check(sift::apps::positive_decimal());
  sift::apps::add_strict_flag(cmd, o->strict, "of --rows was left out (checked before any request is sent)");
  cmd->add_option("--bisect-steps", o->bisect_steps, "--find-max: halvings between the last rate that held and the first "
                  "that missed (default 4)")->check(CLI::Range(0, 20));
  cmd->callback([o] {
    if (o->route == "score" && o->label_token_ids.empty())
      sift::apps::usage_error("--route score needs --label-token-ids (the answer tokens of each request)");
    sift::serve::LoadOptions load;
    load.url = o->url;
    load.path = "/v1/" + o->route;
    load.rate = o->rate;
    load.duration_s = o->duration;
    load.connections = o->connections;
    load.seed = o->seed;
    load.closed_loop = o->closed_loop;
    sift::serve::check_load_options(load);  // before the rows are read
    int64_t rows_left_out = 0;
    load.requests = read_requests(*o, rows_left_out);
    const int64_t rows_read = static_cast<int64_t>(load.requests.size()) + rows_left_out;
    // Before any load is sent: a run of minutes on part of the rows is not what --strict asks for.
    sift::apps::check_strict(o->strict, rows_left_out, rows_read, "left out of --rows, with the warnings above");
    if (!o->api_key_file.empty()) load.api_key = read_key(o->api_key_file);
    nlohmann::json out = o->find_max ? sift::serve::find_max_rate(load, o->p99_ms, o->bisect_steps).to_json(o->p99_ms)
                                     : sift::serve::run_load(load).to_json();
    out["rows_left_out"] = rows_left_out;
    sift::apps::print_report(out);
    if (!sift::apps::global_options().quiet)
      fmt::print(stderr, "sift loadgen: {} of --rows sent as requests, {} left out\n",
                 sift::apps::counted(static_cast<int64_t>(load.requests.size()), "row"),
                 sift::apps::counted(rows_left_out, "row"));
  });
}
