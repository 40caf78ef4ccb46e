#include "workflows/score_stream.h"

#include <exception>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/bounded_queue.h"
#include "core/error.h"
#include "core/parallel.h"
#include "scoring/score_io.h"
#include "workflows/pending_rows.h"

namespace sift {
namespace {

// Scores a batch of rows together (rows share forward calls) and returns its output lines.
std::vector<nlohmann::json> score_batch(const ScoringEngine& labeler, Session& session, std::vector<PendingRow>& batch,
                                        const ScoringOptions& options, StreamStats& stats) {
  const std::vector<RowResult> results = score_pending_rows(labeler, session, batch, options);
  std::vector<nlohmann::json> lines;
  for (size_t r = 0; r < batch.size(); ++r) {
    ++stats.lines;
    if (!results[r].error.empty()) {
      lines.push_back(row_error_to_json(batch[r].line_number, results[r].error, &batch[r].row.id));
      ++stats.errors;
    } else {
      lines.push_back(row_result_to_json(batch[r].row, results[r], options.mode));
      stats.labels += static_cast<int64_t>(batch[r].row.items.size());
    }
  }
  return lines;
}

}  // namespace

StreamStats score_stream(const ScoringEngine& labeler, std::istream& in, std::ostream& out, const ScoringOptions& options,
                         const ProgressFn& progress, std::chrono::duration<double> progress_interval) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  Clock::time_point last_report = start;
  const int64_t call_budget = labeler.limits(options).max_call_tokens;

  // Reader: lines -> parsed, tokenized rows, queued in input order (at most two calls' worth
  // of tokens ahead of the scorer). Tokenization runs here, beside inference, on one thread.
  BoundedQueue<PendingRow> queue(2 * call_budget);
  std::exception_ptr reader_error;
  std::thread reader([&] {
    try {
      const ThreadCount one_thread(1);
      std::string line;
      for (int64_t line_number = 1; std::getline(in, line); ++line_number) {
        PendingRow pending = read_pending_row(labeler, line, line_number, options.mode);
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
      for (const nlohmann::json& output : score_batch(labeler, session, batch, options, stats)) {
        out << output_line_text(output) << '\n';
      }
      out.flush();
      if (!out) fail("cannot write the output (after {} lines)", stats.lines);
      const Clock::time_point now = Clock::now();
      if (progress && progress_interval.count() > 0 && now - last_report >= progress_interval) {
        stats.seconds = std::chrono::duration<double>(now - start).count();
        progress(stats);
        last_report = now;
      }
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
