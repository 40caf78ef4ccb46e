#pragma once
// The fingerprint of a `sift batch` job: everything that decides the bytes of its output.
// `--resume` continues a job only when this run's fingerprint equals the one its progress
// file recorded, and `sift batch merge` joins shards of one job only.
//
//   {"artifact": "sha256:...",  the labeler's files (sift.json, config.json, tokenizer.json,
//                               weights): artifact_fingerprint
//    "version": "...", "threshold": t,   sift.json's version, the threshold used (--threshold)
//    "mode": "mis",
//    "request_tokens": n,       min(--max-request-tokens, --max-batch-tokens): how long rows
//                               are split into requests (it shows in each line's usage)
//    "weights": "q8",           --weights bf16 or q8 (their scores differ from f32's); absent
//                               for auto and f32, whose scores are the same bits
//    "shard": "K/N",
//    "input": {"bytes": n, "sha256_head_tail": "..."}}   the input file: its size and the
//                               SHA-256 of its first and last MiB (no pass over a 10 GB file)
//
// Thread counts, --tokenize-threads, --errors-max and paths are not part of it: they change
// how fast a job runs or when it stops, not what it writes.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "formats/score_io.h"
#include "io/shard.h"
#include "sift/labeler.h"

namespace sift::batch {

nlohmann::ordered_json input_identity(const std::filesystem::path& input);

nlohmann::ordered_json job_fingerprint(const std::filesystem::path& model_dir, const Labeler& labeler,
                                       const ScoringOptions& options, WeightStorage weights, BatchLine line,
                                       const Shard& shard, const std::filesystem::path& input);

// An Error when `recorded` (from `where`) differs from `current`, naming each field that does.
void check_same_job(const nlohmann::ordered_json& recorded, const nlohmann::ordered_json& current,
                    const std::filesystem::path& where);

}  // namespace sift::batch
