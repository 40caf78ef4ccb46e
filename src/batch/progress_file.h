#pragma once
// OUT.progress: the checkpoint of a `sift batch` job, replaced atomically (at least every few
// seconds, after OUT was synced), and what `--resume` and `sift batch merge` trust. It proves
// itself and the files it describes:
//
//   {"format": "sift.batch-progress/2",
//    "job": {...},                       the job's fingerprint (job_fingerprint.h)
//    "input_path": "...",                informative: the input may move
//    "lines_read": n,                    input lines consumed (their rows are all in OUT)
//    "input_offset": n,                  decoded input bytes consumed
//    "resume": {"restart_offset": n, "skip_bytes": n},   where reading continues (resumable_input.h)
//    "output": {"bytes": n, "sha256": "...", "midstate": {"bytes": m, "state": "..."}},
//                                        OUT's length, the SHA-256 of those bytes, and SHA-256's
//                                        midstate at its last whole MiB (file_digest.h)
//    "pending": {...the same...},        zstd: the open frame's lines in OUT.progress.tail
//    "rows": n, "labels": n, "errors": n, "prefill_tokens": n,   totals of the rows in OUT
//    "complete": false, "updated_at": "2026-12-01T03:01:00.123Z",
//    "checksum": "sha256:..."}           the SHA-256 of the file's bytes before this last line
//
// Reading is strict, so that a damaged or edited file is refused, naming it, before anything
// is written: the checksum must match (any change, even of one byte, that did not recompute
// it), every field must be there with its type and nothing else, and the fields must agree
// with each other (the rows are those of the lines read for the shard, a complete job has no
// pending lines, the SHA-256 midstates are where they belong). What it says of OUT, the tail
// file and the input is checked against them when they are opened (batch_output.h,
// run_batch.cpp, merge_shards.cpp). A file of format sift.batch-progress/1 (an earlier sift,
// without checksum or digests) is refused with a message saying how to go on.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "batch/batch_output.h"
#include "batch/resumable_input.h"

namespace sift::batch {

struct JobTotals {
  int64_t rows = 0;            // output lines
  int64_t labels = 0;          // items scored
  int64_t errors = 0;          // error lines
  int64_t prefill_tokens = 0;  // tokens run through the model
};

// What OUT.progress records (the checkpoint of a job).
struct JobProgress {
  nlohmann::ordered_json job;
  std::string input_path;
  int64_t lines_read = 0;
  int64_t input_offset = 0;
  InputPosition resume;
  OutputState output;
  JobTotals totals;
  bool complete = false;
};

std::filesystem::path progress_file_path(const std::filesystem::path& output);  // OUT.progress

void write_checkpoint(const std::filesystem::path& progress_path, const JobProgress& checkpoint);
// The checkpoint in the file; nullopt when there is none; an Error naming the file (and the
// field) when it is not a progress file sift batch wrote as it is.
std::optional<JobProgress> read_checkpoint(const std::filesystem::path& progress_path);

}  // namespace sift::batch
