#include "batch/progress_file.h"

#include <fstream>
#include <sstream>

#include "batch/durable_file.h"
#include "core/error.h"
#include "core/utc_time.h"
#include "io/json_parse.h"

namespace sift::batch {
namespace {

constexpr std::string_view kProgressFormat = "sift.batch-progress/1";

int64_t count_field(const nlohmann::ordered_json& object, const char* name, const std::filesystem::path& where) {
  const auto field = object.find(name);
  if (field == object.end() || !field->is_number_integer() || field->get<int64_t>() < 0)
    fail("{}: field \"{}\" must be a non-negative integer: the file is not a sift batch progress file",
         where.string(), name);
  return field->get<int64_t>();
}

}  // namespace

std::filesystem::path progress_file_path(const std::filesystem::path& output) {
  std::filesystem::path path = output;
  path += ".progress";
  return path;
}

void write_checkpoint(const std::filesystem::path& progress_path, const JobProgress& c) {
  nlohmann::ordered_json out;
  out["format"] = kProgressFormat;
  out["job"] = c.job;
  out["input_path"] = c.input_path;
  out["lines_read"] = c.lines_read;
  out["input_offset"] = c.input_offset;
  out["resume"] = {{"restart_offset", c.resume.restart_offset}, {"skip_bytes", c.resume.skip_bytes}};
  out["output_bytes"] = c.output.output_bytes;
  out["pending_bytes"] = c.output.pending_bytes;
  out["rows"] = c.totals.rows;
  out["labels"] = c.totals.labels;
  out["errors"] = c.totals.errors;
  out["prefill_tokens"] = c.totals.prefill_tokens;
  out["complete"] = c.complete;
  out["updated_at"] = utc_timestamp();
  replace_file_atomically(progress_path, out.dump(1) + "\n");
}

std::optional<JobProgress> read_checkpoint(const std::filesystem::path& progress_path) {
  std::ifstream in(progress_path, std::ios::binary);
  if (!in) {
    if (!std::filesystem::exists(progress_path)) return std::nullopt;
    fail("{}: cannot read the progress file", progress_path.string());
  }
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json object;
  try {
    object = parse_json<nlohmann::ordered_json>(text.str(), progress_path.string());
  } catch (const Error& e) {  // parse_json's message names the file, the line and the column
    fail("not a sift batch progress file: {}", e.what());
  }
  if (!object.is_object() || object.value("format", "") != kProgressFormat)
    fail("{}: not a sift batch progress file (\"format\" is not \"{}\")", progress_path.string(), kProgressFormat);
  JobProgress c;
  const auto job = object.find("job");
  if (job == object.end() || !job->is_object()) fail("{}: field \"job\" must be an object", progress_path.string());
  c.job = *job;
  c.input_path = object.value("input_path", "");
  c.lines_read = count_field(object, "lines_read", progress_path);
  c.input_offset = count_field(object, "input_offset", progress_path);
  const auto resume = object.find("resume");
  if (resume == object.end() || !resume->is_object()) fail("{}: field \"resume\" must be an object", progress_path.string());
  c.resume = {count_field(*resume, "restart_offset", progress_path), count_field(*resume, "skip_bytes", progress_path)};
  c.output = {count_field(object, "output_bytes", progress_path), count_field(object, "pending_bytes", progress_path)};
  c.totals = {count_field(object, "rows", progress_path), count_field(object, "labels", progress_path),
              count_field(object, "errors", progress_path), count_field(object, "prefill_tokens", progress_path)};
  const auto complete = object.find("complete");
  if (complete == object.end() || !complete->is_boolean())
    fail("{}: field \"complete\" must be true or false", progress_path.string());
  c.complete = complete->get<bool>();
  return c;
}

}  // namespace sift::batch
