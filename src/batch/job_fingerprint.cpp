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

// The model name of the unverified engines `job` records, if it records them.
std::optional<std::string> unverified_model(const nlohmann::ordered_json& job) {
  const auto recorded = job.find("arithmetic");
  if (recorded == job.end()) return std::nullopt;
  return recorded->contains("model") ? recorded->at("model").dump() : "a model";
}

}  // namespace

std::string arithmetic_name(const nlohmann::ordered_json& job) {
  if (const std::optional<std::string> model = unverified_model(job))
    return fmt::format("the arithmetic of engines that cannot prove their labeler (no sift_fingerprint, as SGLang) "
                       "serving {}",
                       *model);
  return "sift's own arithmetic (here, or on sift serve replicas that proved this labeler)";
}

void check_same_arithmetic(const nlohmann::ordered_json& recorded, const nlohmann::ordered_json& current,
                           const std::filesystem::path& where) {
  const std::string before = arithmetic_name(recorded), now = arithmetic_name(current);
  if (before == now) return;
  const std::optional<std::string> model = unverified_model(recorded);
  fail("{}: the job's rows were scored with {}, but this run would score with {}: one output would hold rows of two "
       "arithmetics. Go on as the job began ({}), or write this run to another output",
       where.string(), before, now,
       model ? fmt::format("--engine on such engines serving {}, started as they were", *model)
             : "without --engine, or with --engine on sift serve replicas of this labeler");
}

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
                                       const Shard& shard, const std::filesystem::path& input,
                                       const std::optional<std::string>& unverified_engines) {
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
  if ((options.long_items && *options.long_items != LongItems::Error) || options.max_item_tokens) {
    // cut or chunked items score differently; absent when neither (as in older jobs)
    nlohmann::ordered_json rule = {{"rule", std::string(long_items_name(options.long_items.value_or(LongItems::Error)))}};
    if (options.max_item_tokens) rule["max_item_tokens"] = *options.max_item_tokens;
    if (options.long_items == LongItems::Chunk) {
      rule["window_stride"] = options.window_stride ? nlohmann::ordered_json(*options.window_stride) : nullptr;
      rule["max_windows"] = options.max_windows;
    }
    job["long_items"] = std::move(rule);
  }
  if (line == BatchLine::Echo) job["echo"] = true;  // other lines; absent when off (as in older jobs)
  if (unverified_engines)  // another arithmetic; absent for sift's own (as in older jobs)
    job["arithmetic"] = {{"engines", "unverified"}, {"model", *unverified_engines}};
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
