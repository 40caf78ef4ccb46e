#pragma once
// `sift batch merge --output OUT SHARD_OUT...`: the N outputs of one job run as --shard 1/N ..
// N/N, interleaved back into input order (input line n is shard ((n - 1) mod N) + 1's next
// line). OUT is byte-identical to the output of one unsharded run: the same lines, and for a
// ".zst" OUT the same frames (batch_output.h).
//
// Checked before anything is written, from each shard's progress file (itself checked:
// progress_file.h): every shard is complete, all are shards of one job (the same fingerprint
// but for the shard), K = 1..N each once, each saw the same number of input lines, holds the
// rows its lines give, and has the length and the SHA-256 its progress file records (each
// shard is read once for it: an edit that keeps the length is refused too). While merging:
// each shard runs out exactly when its rows do, and every error line's "line" is the input
// line it stands for. So no row is missing, repeated, out of place or altered.
//
// OUT is written as OUT.merging and renamed when complete, with OUT.progress: the
// checkpoint of the complete unsharded job (with the merged OUT's SHA-256), so
// `sift batch --resume` recognises it as done. OUT is locked for the merge (path_lock.h).
#include <cstdint>
#include <filesystem>
#include <vector>

namespace sift::batch {

struct MergeSummary {
  int64_t shards = 0;
  int64_t rows = 0;
};

MergeSummary merge_shards(const std::vector<std::filesystem::path>& shard_outputs, const std::filesystem::path& output);

}  // namespace sift::batch
