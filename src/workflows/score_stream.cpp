#include "workflows/score_stream.h"

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/input_shape.h"
#include "formats/row_pipeline.h"

namespace sift {

StreamStats score_stream(const Labeler& labeler, LineReader& in, const std::function<void(std::string_view)>& write,
                         const ScoringOptions& options, const StreamHooks& hooks, bool echo) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const nlohmann::ordered_json provenance = artifact_provenance_json(labeler, options);
  Context context = labeler.context();
  StreamStats stats;

  struct NoPosition {};
  std::string first_line;  // on the reader's thread until the pipeline ends
  const auto next_line = [&](PipelineLine<NoPosition>& line) {
    InputLine input;
    if (!in.next(input)) return false;
    line.number = input.number;
    if (input.too_long) line.error = too_long_line_message(input, in.max_line_bytes());
    else line.text = std::move(input.text);
    if (first_line.empty() && !is_blank_line(line.text)) first_line = line.text;
    return true;
  };
  const auto write_batch = [&](ScoredRows<NoPosition>& batch) {
    std::string lines;
    for (size_t r = 0; r < batch.rows.size(); ++r) {
      const PendingRow& row = batch.rows[r];
      const RowResult& result = batch.results[r];
      ++stats.lines;
      if (!result.error.empty()) {
        lines += output_line_text(row_error_to_json(row.line_number, result.error, &row.row.id));
        ++stats.errors;
      } else {
        lines += output_line_text(echo ? echoed_row_to_json(row.row, result, options.mode, provenance)
                                       : row_result_to_json(row.row, result, options.mode, provenance));
        stats.labels += static_cast<int64_t>(row.row.items.size());
        if (result.generation) stats.unparsed += static_cast<int64_t>(result.generation->unparsed.size());
        stats.prefill_tokens += result.prefill_tokens;
        stats.cached_tokens += result.cached_tokens;
        if (hooks.scored_row) hooks.scored_row(row.line_number, row.row, result);
      }
      lines += '\n';
    }
    write(lines);
    stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (hooks.progress) hooks.progress(stats);
  };
  RowPipelineOptions pipeline{.scoring = options, .tokenize_threads = 1, .chunk_lines = 1, .command = "sift score",
                              .tokenize_threads_flag = ""};
  run_row_pipeline<NoPosition>(labeler, context, pipeline, next_line, write_batch);
  stats.first_line = std::move(first_line);
  stats.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return stats;
}

}  // namespace sift
