#include "batch/stage_pipeline.h"

#include <fmt/format.h>

#include "io/line_reader.h"

namespace sift::batch {

LineEnd run_stages(const Labeler& labeler, Context& context, const BatchOptions& options, ResumableLineReader& reader,
                   const LineEnd& input_start, BatchWriter& writer) {
  LineEnd input_end = input_start;  // the last line read, in this shard or not
  const auto next_line = [&](PipelineLine<LineEnd>& line) {
    for (ResumableLine read; reader.next(read);) {
      input_end = end_of(read);
      if (!shard_holds_line(options.shard, read.number)) continue;
      line.number = read.number;
      line.position = input_end;
      if (read.too_long) line.error = fmt::format("line longer than {} MiB", kDefaultMaxLineBytes >> 20);
      else line.text = std::move(read.text);
      return true;
    }
    return false;
  };
  const RowPipelineOptions pipeline{.scoring = options.scoring,
                                    .tokenize_threads = options.tokenize_threads,
                                    .chunk_lines = 64,
                                    .command = "sift batch",
                                    .tokenize_threads_flag = "--tokenize-threads"};
  run_row_pipeline<LineEnd>(labeler, context, pipeline, next_line, [&](ScoredBatch& batch) { writer.write(batch); });
  return input_end;
}

}  // namespace sift::batch
