#include "batch/merge_shards.h"

#include <algorithm>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "batch/batch_output.h"
#include "batch/durable_file.h"
#include "batch/job_fingerprint.h"
#include "batch/resumable_input.h"
#include "batch/resumable_line_reader.h"
#include "batch/output_guard.h"
#include "batch/progress_file.h"
#include "batch/shard_lines.h"
#include "core/error.h"
#include "io/json_parse.h"
#include "io/path_lock.h"
#include "io/shard.h"

namespace sift::batch {
namespace {

constexpr int64_t kMaxOutputLineBytes = int64_t(1) << 30;  // output lines outgrow input lines by the scores

struct ShardFile {
  std::filesystem::path path;
  JobProgress progress;
  Shard shard;
};

// Every byte of the shard against the SHA-256 its progress file records (one read of it,
// before anything is written): an edit that keeps its length is refused too.
void check_whole_shard(const ShardFile& file, const std::filesystem::path& progress_path) {
  std::ifstream in(file.path, std::ios::binary);
  if (!in) fail("{}: cannot open the shard", file.path.string());
  FileDigest digest;
  std::vector<char> block(size_t(1) << 20);
  while (in) {
    in.read(block.data(), std::streamsize(block.size()));
    digest.add({block.data(), size_t(in.gcount())});
  }
  if (in.bad()) fail("{}: read error", file.path.string());
  if (digest.checkpoint() != file.progress.output.file)
    fail("{}: its bytes do not have the SHA-256 its progress file {} records: it was changed after its job completed",
         file.path.string(), progress_path.string());
}

ShardFile open_shard(const std::filesystem::path& path) {
  const std::filesystem::path progress_path = progress_file_path(path);
  std::optional<JobProgress> progress = read_checkpoint(progress_path);
  if (!progress)
    fail("{}: no progress file {}: merge joins the outputs of sift batch --shard K/N runs", path.string(),
         progress_path.string());
  if (!progress->complete)
    fail("{}: its job is not complete ({} rows so far): finish it with sift batch --resume, then merge", path.string(),
         progress->totals.rows);
  ShardFile file{path, std::move(*progress), {}};
  file.shard = Shard::parse(file.progress.job.at("shard").get<std::string>());  // read_checkpoint checked it
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error || int64_t(size) != file.progress.output.file.bytes)
    fail("{}: {} bytes, but its progress file records {}: it was changed after its job completed", path.string(),
         error ? 0 : size, file.progress.output.file.bytes);
  check_whole_shard(file, progress_path);
  return file;
}

nlohmann::ordered_json without_shard(nlohmann::ordered_json job) {
  job.erase("shard");
  return job;
}

// Checks that the shards are K = 1..N of one job, each whole; sorts them by K.
void check_shards(std::vector<ShardFile>& shards) {
  const int64_t n = shards.front().shard.count;
  std::sort(shards.begin(), shards.end(), [](const ShardFile& a, const ShardFile& b) { return a.shard.index < b.shard.index; });
  for (size_t i = 0; i < shards.size(); ++i) {
    const ShardFile& file = shards[i];
    if (file.shard.count != n)
      fail("{} is shard {} but {} is shard {}: not one split of a job", file.path.string(), file.shard.to_string(),
           shards.front().path.string(), shards.front().shard.to_string());
    if (i > 0 && file.shard.index == shards[i - 1].shard.index)
      fail("shard {} is given twice: {} and {}", file.shard.to_string(), shards[i - 1].path.string(), file.path.string());
    if (arithmetic_name(file.progress.job) != arithmetic_name(shards.front().progress.job))
      fail("{} was scored with {}, but {} with {}: a merge would hold rows of two arithmetics; run every shard the "
           "same way",
           shards.front().path.string(), arithmetic_name(shards.front().progress.job), file.path.string(),
           arithmetic_name(file.progress.job));
    if (without_shard(file.progress.job) != without_shard(shards.front().progress.job))
      fail("{} and {} are shards of different jobs (other labeler, threshold, mode, request size or input)",
           shards.front().path.string(), file.path.string());
    if (file.progress.lines_read != shards.front().progress.lines_read)
      fail("{} read {} input lines, {} read {}: not one input", file.path.string(), file.progress.lines_read,
           shards.front().path.string(), shards.front().progress.lines_read);
  }
  for (int64_t k = 1; k <= n; ++k)
    if (std::none_of(shards.begin(), shards.end(), [&](const ShardFile& f) { return f.shard.index == k; }))
      fail("shard {}/{} is missing: merge needs all {} shards of the job", k, n, n);
  const int64_t lines = shards.front().progress.lines_read;
  for (const ShardFile& file : shards) {
    const int64_t expected = shard_rows(file.shard, lines);
    if (file.progress.totals.rows != expected)
      fail("{}: {} rows, but shard {} of {} input lines holds {}", file.path.string(), file.progress.totals.rows,
           file.shard.to_string(), lines, expected);
  }
}

// An error line must stand for the input line it is merged at.
void check_line_number(const std::string& text, int64_t line_number, const std::filesystem::path& shard) {
  if (!text.starts_with("{\"error\":")) return;
  int64_t recorded = -1;
  try {
    const nlohmann::json object = parse_json(text, shard.string());
    recorded = object.value("line", int64_t(-1));
  } catch (const nlohmann::json::exception&) {
  }
  if (recorded != line_number)
    fail("{}: the error line of input line {} comes where input line {} belongs: the shard is not in input order",
         shard.string(), recorded, line_number);
}

}  // namespace

MergeSummary merge_shards(const std::vector<std::filesystem::path>& shard_outputs, const std::filesystem::path& output) {
  if (shard_outputs.empty()) fail("sift batch merge: no shard outputs given");
  std::vector<std::filesystem::path> protected_files;
  for (const std::filesystem::path& path : shard_outputs) {
    protected_files.push_back(path);
    protected_files.push_back(progress_file_path(path));
  }
  check_output_paths(output, protected_files);
  const PathLock lock(output);  // two merges never write one OUT (and its OUT.merging) at once
  const std::filesystem::path progress_path = progress_file_path(output);
  for (const std::filesystem::path& path : {output, progress_path})
    if (std::filesystem::exists(path)) fail("{}: exists already; sift batch merge never overwrites an output", path.string());
  std::vector<ShardFile> shards;
  for (const std::filesystem::path& path : shard_outputs) shards.push_back(open_shard(path));
  check_shards(shards);

  std::filesystem::path merging = output;
  merging += ".merging";  // renamed to OUT once whole
  std::filesystem::remove(merging);
  std::filesystem::remove(tail_file_path(merging));
  std::unique_ptr<BatchOutput> out = create_batch_output(merging, is_zstd_output(output));
  std::vector<std::unique_ptr<ResumableInput>> files;
  std::vector<std::unique_ptr<ResumableLineReader>> readers;
  for (const ShardFile& shard : shards) {
    files.push_back(std::make_unique<ResumableInput>(shard.path));
    readers.push_back(std::make_unique<ResumableLineReader>(*files.back(), 0, 0, kMaxOutputLineBytes));
  }
  const int64_t n = int64_t(shards.size());
  const int64_t lines = shards.front().progress.lines_read;
  ResumableLine line;
  for (int64_t number = 1; number <= lines; ++number) {
    const size_t k = size_t((number - 1) % n);
    if (!readers[k]->next(line))
      fail("{}: ends after {} rows, but input line {} belongs to it", shards[k].path.string(), readers[k]->lines_read(),
           number);
    if (line.too_long) fail("{}: line {} is longer than 1 GiB", shards[k].path.string(), line.number);
    check_line_number(line.text, number, shards[k].path);
    out->append_line(line.text);
    if (out->frame_closed()) out->checkpoint_done();  // no checkpoints here: the tail file need not keep the frame
  }
  for (size_t k = 0; k < shards.size(); ++k)
    if (readers[k]->next(line))
      fail("{}: has more rows than its {} input lines give", shards[k].path.string(), lines);
  out->finish();
  out->remove_side_files();
  std::filesystem::rename(merging, output);
  sync_parent_directory(output);

  JobProgress merged = shards.front().progress;  // the complete unsharded job
  merged.job["shard"] = Shard{}.to_string();
  merged.totals = {};
  for (const ShardFile& shard : shards) {
    merged.totals.rows += shard.progress.totals.rows;
    merged.totals.labels += shard.progress.totals.labels;
    merged.totals.errors += shard.progress.totals.errors;
    merged.totals.prefill_tokens += shard.progress.totals.prefill_tokens;
  }
  merged.output = out->state();
  write_checkpoint(progress_path, merged);
  return {n, merged.totals.rows};
}

}  // namespace sift::batch
