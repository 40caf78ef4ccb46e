#include "batch/input_stages.h"

#include <fmt/format.h>

#include "core/parallel.h"
#include "io/line_splitter.h"

namespace sift::batch {
namespace {

constexpr size_t kChunkLines = 64;
constexpr size_t kChunkBytes = size_t(64) << 10;

}  // namespace

LineEnd read_shard_lines(ResumableLineReader& reader, const label::Shard& shard, BoundedQueue<LineChunk>& chunks,
                         const LineEnd& start, const std::atomic<bool>& stop) {
  LineEnd end = start;
  LineChunk chunk;
  size_t chunk_bytes = 0;
  const auto send = [&] {
    const int64_t cost = int64_t(chunk_bytes);
    const int64_t next_sequence = chunk.sequence + 1;
    const bool sent = chunks.push(std::move(chunk), cost);
    chunk = LineChunk{.sequence = next_sequence};
    chunk_bytes = 0;
    return sent;
  };
  for (ResumableLine line; !stop && reader.next(line);) {
    end = end_of(line);
    if (!shard_holds_line(shard, line.number)) continue;
    chunk_bytes += line.text.size() + 1;
    chunk.lines.push_back(std::move(line));
    line = ResumableLine{};
    if ((chunk.lines.size() >= kChunkLines || chunk_bytes >= kChunkBytes) && !send()) break;
  }
  if (!chunk.lines.empty() && !stop) send();
  chunks.close();
  return end;
}

void tokenize_chunks(const ScoringEngine& engine, const ScoringOptions& options, BoundedQueue<LineChunk>& chunks,
                     InOrderGate& gate, BoundedQueue<BatchRow>& rows, const std::atomic<bool>& stop) {
  const ThreadCount one_thread(1);  // parallel across chunks, not within one
  for (std::vector<LineChunk> taken; !stop && !(taken = chunks.pop_batch(0)).empty();) {
    LineChunk& chunk = taken.front();
    std::vector<std::pair<BatchRow, int64_t>> read;  // rows and their queue costs
    read.reserve(chunk.lines.size());
    for (ResumableLine& line : chunk.lines) {
      BatchRow row;
      row.end = end_of(line);
      row.pending = line.too_long ? pending_error_row(line.number, fmt::format("line longer than {} MiB",
                                                                               kDefaultMaxLineBytes >> 20))
                                  : read_pending_row(engine, line.text, line.number, options);
      const int64_t cost = queue_cost(row.pending, line.text.size());
      read.emplace_back(std::move(row), cost);
    }
    if (!gate.wait_turn(chunk.sequence)) return;
    for (auto& [row, cost] : read)
      if (!rows.push(std::move(row), cost)) return;
    gate.pass();
  }
}

}  // namespace sift::batch
