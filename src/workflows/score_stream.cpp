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
#include "io/line_reader.h"
#include "scoring/score_io.h"
#include "workflows/pending_rows.h"

namespace sift {
namespace {

// A line as a row: too long to read, or parsed and tokenized (workflows/pending_rows.h).
PendingRow read_row(const ScoringEngine& labeler, InputLine& line, int64_t max_line_bytes,
                    const ScoringOptions& options) {
  if (line.too_long) return pending_error_row(line.number, too_long_line_message(line, max_line_bytes));
  return read_pending_row(labeler, line.text, line.number, options);
}

// Scores a batch of rows together (rows share forward calls) and returns its output lines.
std::string score_batch(const ScoringEngine& labeler, Session& session, std::vector<PendingRow>& batch,
                        const ScoringOptions& options, const nlohmann::ordered_json& provenance,
                        const StreamHooks& hooks, bool echo, StreamStats& stats) {
  const std::vector<RowResult> results = score_pending_rows(labeler, session, batch, options);
  std::string lines;
  for (size_t r = 0; r < batch.size(); ++r) {
    ++stats.lines;
    if (!results[r].error.empty()) {
      lines += output_line_text(row_error_to_json(batch[r].line_number, results[r].error, &batch[r].row.id));
      ++stats.errors;
    } else {
      lines += output_line_text(echo ? echoed_row_to_json(batch[r].row, results[r], options.mode, provenance)
                                     : row_result_to_json(batch[r].row, results[r], options.mode, provenance));
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
                         const ScoringOptions& options, const StreamHooks& hooks, bool echo) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const int64_t call_budget = labeler.call_tokens(options);
  const nlohmann::ordered_json provenance = artifact_provenance_json(labeler.artifact(), options);

  // Reader: lines -> parsed, tokenized rows, queued in input order (at most two calls' worth
  // of tokens ahead of the scorer). Tokenization runs here, beside inference, on one thread.
  BoundedQueue<PendingRow> queue(2 * call_budget);
  std::exception_ptr reader_error;
  std::thread reader([&] {
    try {
      const ThreadCount one_thread(1);
      for (InputLine line; in.next(line);) {
        PendingRow pending = read_row(labeler, line, in.max_line_bytes(), options);
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
      write(score_batch(labeler, session, batch, options, provenance, hooks, echo, stats));
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
