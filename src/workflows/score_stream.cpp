#include "workflows/score_stream.h"

#include <chrono>
#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_queue.h"
#include "core/error.h"
#include "core/parallel.h"
#include "io/json_parse.h"
#include "io/line_reader.h"
#include "scoring/score_io.h"

namespace sift {
namespace {

// The "id" of a line that is a JSON object with one, else null (also for a line nested too
// deep to parse: its id is not echoed).
nlohmann::json echoed_id(const std::string& line) {
  try {
    const nlohmann::json object = parse_json(line, "");
    return object.is_object() ? object.value("id", nlohmann::json()) : nlohmann::json();
  } catch (const std::exception&) {
    return nullptr;
  }
}

// One input line on its way through: parsed and tokenized, or the error it gave.
struct PendingRow {
  int64_t line_number = 0;
  ScoringRow row;
  TokenizedRow tokens;  // not for mode generate, which scores text
  std::string error;
  int64_t cost = 1;     // prompt tokens (the queue's and the batch's measure)
};

PendingRow read_row(const ScoringEngine& labeler, const InputLine& line, int64_t max_line_bytes, ScoringMode mode) {
  PendingRow pending;
  pending.line_number = line.number;
  try {
    if (line.too_long) fail("{}", too_long_line_message(line, max_line_bytes));
    if (line.text.find_first_not_of(" \t") == std::string::npos) fail("empty line (expected a JSON object)");
    pending.row = parse_scoring_row(line.text);
    if (mode != ScoringMode::Generate) {
      pending.tokens = labeler.tokenize(pending.row.query, pending.row.items);
      if (!pending.tokens.error.empty()) fail("{}", pending.tokens.error);
      pending.cost = static_cast<int64_t>(pending.tokens.query.size());
      for (const TokenIds& item : pending.tokens.items) pending.cost += static_cast<int64_t>(item.size());
    }
  } catch (const std::exception& e) {  // whatever went wrong, it is this row's error
    pending.error = e.what();
    pending.tokens = TokenizedRow{};
    if (!line.too_long) pending.row.id = echoed_id(line.text);  // when the line is an object with an id
  }
  return pending;
}

// Scores a batch of rows together (rows share forward calls) and returns its output lines.
std::string score_batch(const ScoringEngine& labeler, Session& session, std::vector<PendingRow>& batch,
                        const ScoringOptions& options, const nlohmann::ordered_json& provenance,
                        const StreamHooks& hooks, StreamStats& stats) {
  // Only the rows read without error go to the engine; results[r] stays empty for the others.
  std::vector<size_t> readable;
  for (size_t r = 0; r < batch.size(); ++r)
    if (batch[r].error.empty()) readable.push_back(r);
  std::vector<RowResult> scored;
  if (options.mode == ScoringMode::Generate) {
    std::vector<TextRow> rows;
    for (size_t r : readable) rows.push_back({batch[r].row.query, batch[r].row.items});
    scored = labeler.score_rows(session, rows, options);
  } else {
    std::vector<TokenizedRow> rows;
    for (size_t r : readable) rows.push_back(std::move(batch[r].tokens));
    scored = labeler.score_tokenized(session, rows, options);
  }
  std::vector<RowResult> results(batch.size());
  for (size_t k = 0; k < readable.size(); ++k) results[readable[k]] = std::move(scored[k]);
  std::string lines;
  for (size_t r = 0; r < batch.size(); ++r) {
    ++stats.lines;
    const std::string& error = batch[r].error.empty() ? results[r].error : batch[r].error;
    if (!error.empty()) {
      lines += row_error_to_json(batch[r].line_number, error, &batch[r].row.id)
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      ++stats.errors;
    } else {
      lines += row_result_to_json(batch[r].row, results[r], options.mode, provenance)
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      stats.labels += static_cast<int64_t>(batch[r].row.items.size());
      stats.unparsed += static_cast<int64_t>(results[r].unparsed.size());
      if (hooks.scored_row) hooks.scored_row(batch[r].line_number, batch[r].row, results[r]);
    }
    lines += '\n';
  }
  return lines;
}

}  // namespace

StreamStats score_stream(const ScoringEngine& labeler, LineReader& in, const std::function<void(std::string_view)>& write,
                         const ScoringOptions& options, const StreamHooks& hooks) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const int64_t call_budget = labeler.limits(options).max_call_tokens;
  const nlohmann::ordered_json provenance = artifact_provenance_json(labeler.artifact(), options);

  // Reader: lines -> parsed, tokenized rows, queued in input order (at most two calls' worth
  // of tokens ahead of the scorer). Tokenization runs here, beside inference, on one thread.
  BoundedQueue<PendingRow> queue(2 * call_budget);
  std::exception_ptr reader_error;
  std::thread reader([&] {
    try {
      const ThreadCount one_thread(1);
      for (InputLine line; in.next(line);) {
        PendingRow pending = read_row(labeler, line, in.max_line_bytes(), options.mode);
        const int64_t cost = pending.cost;
        if (!queue.push(std::move(pending), cost)) break;  // the scorer stopped
      }
    } catch (...) {
      reader_error = std::current_exception();
    }
    queue.close();
  });
  const auto stop_reader = [&] {
    queue.close();
    reader.join();
  };

  // Scorer: whatever is queued, up to one call's tokens, scored together, written in order.
  Session session(labeler.model());
  StreamStats stats;
  try {
    for (std::vector<PendingRow> batch; !(batch = queue.pop_batch(call_budget)).empty();) {
      write(score_batch(labeler, session, batch, options, provenance, hooks, stats));
      stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
      if (hooks.progress) hooks.progress(stats);
    }
  } catch (...) {
    stop_reader();
    throw;
  }
  stop_reader();
  if (reader_error) std::rethrow_exception(reader_error);
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return stats;
}

}  // namespace sift
