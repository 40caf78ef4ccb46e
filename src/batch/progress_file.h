#pragma once
// OUT.progress: the checkpoint of a `sift batch` job, replaced atomically (at least every few
// seconds, after OUT was synced), and what `--resume` continues from.
//
//   {"format": "sift.batch-progress/1",
//    "job": {...},                       the job's fingerprint (job_fingerprint.h)
//    "input_path": "...",                informative: the input may move
//    "lines_read": n,                    input lines consumed (their rows are all in OUT)
//    "input_offset": n,                  decoded input bytes consumed
//    "resume": {"restart_offset": n, "skip_bytes": n},   where reading continues (resumable_input.h)
//    "output_bytes": n, "pending_bytes": n,              OUT's length; zstd tail (batch_output.h)
//    "rows": n, "labels": n, "errors": n, "prefill_tokens": n,   totals of the rows in OUT
//    "complete": false, "updated_at": "2026-12-01T03:01:00.123Z"}
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
// The checkpoint in the file; nullopt when there is none; an Error naming the file and field
// when it is not a progress file.
std::optional<JobProgress> read_checkpoint(const std::filesystem::path& progress_path);

}  // namespace sift::batch
