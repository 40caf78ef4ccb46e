#include "batch/job_fingerprint.h"

#include <fstream>
#include <string>

#include <fmt/format.h>

#include "core/error.h"
#include "io/content_hash.h"

namespace sift::batch {
namespace {

constexpr int64_t kIdentityBlockBytes = int64_t(1) << 20;

std::string read_range(std::ifstream& in, int64_t offset, int64_t n, const std::filesystem::path& path) {
  std::string bytes(size_t(n), '\0');
  in.seekg(offset);
  if (!in.read(bytes.data(), n)) fail("{}: cannot read bytes {}..{}", path.string(), offset, offset + n);
  return bytes;
}

}  // namespace

nlohmann::ordered_json input_identity(const std::filesystem::path& input) {
  std::ifstream in(input, std::ios::binary);
  if (!in) fail("{}: cannot open the input", input.string());
  const int64_t size = int64_t(std::filesystem::file_size(input));
  const int64_t head = std::min(size, kIdentityBlockBytes);
  const int64_t tail_start = std::max(head, size - kIdentityBlockBytes);
  const std::string sampled = read_range(in, 0, head, input) + read_range(in, tail_start, size - tail_start, input);
  return {{"bytes", size}, {"sha256_head_tail", sha256_hex(sampled)}};
}

nlohmann::ordered_json job_fingerprint(const std::filesystem::path& model_dir, const Labeler& labeler,
                                       const ScoringOptions& options, WeightStorage weights, BatchLine line,
                                       const Shard& shard, const std::filesystem::path& input) {
  const ResolvedOptions resolved = labeler.resolve(options);
  nlohmann::ordered_json job = {{"artifact", artifact_fingerprint(model_dir)},
                                {"version", labeler.version()},
                                {"threshold", resolved.threshold},
                                {"mode", std::string(scoring_mode_name(options.mode))},
                                {"request_tokens", resolved.request_tokens}};
  if (weights == WeightStorage::BF16 || weights == WeightStorage::Q8)
    job["weights"] = std::string(weight_storage_name(weights));
  if (options.truncate != Truncate::None)  // cut rows score differently; absent when off (as in older jobs)
    job["truncate"] = fmt::format("{} {}", truncate_name(options.truncate),
                                  truncation_direction_name(options.truncation_direction));
  if (line == BatchLine::Echo) job["echo"] = true;  // other lines; absent when off (as in older jobs)
  job["shard"] = shard.to_string();
  job["input"] = input_identity(input);
  return job;
}

void check_same_job(const nlohmann::ordered_json& recorded, const nlohmann::ordered_json& current,
                    const std::filesystem::path& where) {
  std::string differences;
  for (auto field = current.begin(); field != current.end(); ++field) {
    const auto before = recorded.find(field.key());
    if (before != recorded.end() && *before == field.value()) continue;
    differences += fmt::format("{}{} is {} in this run, {} in the job", differences.empty() ? "" : "; ", field.key(),
                               field.value().dump(), before == recorded.end() ? "absent" : before->dump());
  }
  for (auto field = recorded.begin(); field != recorded.end(); ++field)  // a field only the job has ("weights")
    if (!current.contains(field.key()))
      differences += fmt::format("{}{} is absent in this run, {} in the job", differences.empty() ? "" : "; ",
                                 field.key(), field.value().dump());
  if (!differences.empty())
    fail("{}: this run is not the job being resumed: {}. --resume continues the same job only (same labeler files, "
         "version, threshold, mode, request size, weights, truncation, --echo, shard and input); write a new job to another output",
         where.string(), differences);
}

}  // namespace sift::batch
