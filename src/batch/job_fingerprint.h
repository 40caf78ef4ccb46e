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
//    "arithmetic": {"engines": "unverified", "model": "my-labeler"},
//                               scored by engines that cannot prove their labeler (SGLang: no
//                               fingerprint; the model name they were checked to serve);
//                               absent for sift's own arithmetic: this machine, or sift serve
//                               replicas that proved the labeler (the same bits), as in older jobs
//    "shard": "K/N",
//    "input": {"bytes": n, "sha256_head_tail": "..."}}   the input file: its size and the
//                               SHA-256 of its first and last MiB (no pass over a 10 GB file)
//
// Thread counts, --tokenize-threads, --errors-max and paths are not part of it: they change
// how fast a job runs or when it stops, not what it writes.
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "formats/score_io.h"
#include "io/shard.h"
#include "sift/labeler.h"

namespace sift::batch {

nlohmann::ordered_json input_identity(const std::filesystem::path& input);

// `unverified_engines`: the model name of the engines that score, when they cannot prove their
// labeler; unset for sift's own arithmetic.
nlohmann::ordered_json job_fingerprint(const std::filesystem::path& model_dir, const Labeler& labeler,
                                       const ScoringOptions& options, WeightStorage weights, BatchLine line,
                                       const Shard& shard, const std::filesystem::path& input,
                                       const std::optional<std::string>& unverified_engines = std::nullopt);

// The arithmetic `job` is scored with, in words (its "arithmetic").
std::string arithmetic_name(const nlohmann::ordered_json& job);

// An Error when `recorded` (from `where`) was scored with another arithmetic than `current`
// would be (its "arithmetic"), naming both and how to go on: one output holds one arithmetic's
// rows. Checked before check_same_job, whose message would only name the field.
void check_same_arithmetic(const nlohmann::ordered_json& recorded, const nlohmann::ordered_json& current,
                           const std::filesystem::path& where);

// The arithmetic `job` is scored with, in words (its "arithmetic").
std::string arithmetic_name(const nlohmann::ordered_json& job);

// An Error when `recorded` (from `where`) differs from `current`, naming each field that does.
void check_same_job(const nlohmann::ordered_json& recorded, const nlohmann::ordered_json& current,
                    const std::filesystem::path& where);

}  // namespace sift::batch
