#include "batch/progress_file.h"

#include <sys/stat.h>

#include <fstream>
#include <set>
#include <sstream>

#include "batch/shard_lines.h"
#include "core/error.h"
#include "core/utc_time.h"
#include "io/atomic_file.h"
#include "io/content_hash.h"
#include "io/json_parse.h"

namespace sift::batch {
namespace {

constexpr std::string_view kProgressFormat = "sift.batch-progress/2";
constexpr std::string_view kUnverifiedFormat = "sift.batch-progress/1";  // an earlier sift's: no checksum, no digests
constexpr std::string_view kChecksumPrefix = "sha256:";

// The file's last line but the closing brace: ` "checksum": "sha256:<hex>"`. The checksum is
// the SHA-256 of every byte before that line.
std::string checksum_line(const std::string& checksum) { return " \"checksum\": \"" + checksum + "\"\n}\n"; }

bool is_hex_digest(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// The fields of one object of the file, each read once by name and type; the first one that
// is missing or mistyped, and any field not read, is an Error naming the file and the field.
class Fields {
 public:
  Fields(const nlohmann::ordered_json& object, std::string prefix, const std::filesystem::path& where)
      : object_(object), prefix_(std::move(prefix)), where_(where) {}

  int64_t count(const char* name) {
    const nlohmann::ordered_json& value = field(name);
    if (!value.is_number_integer() || value.get<int64_t>() < 0) refuse(name, "a non-negative integer");
    return value.get<int64_t>();
  }
  std::string text(const char* name) {
    const nlohmann::ordered_json& value = field(name);
    if (!value.is_string()) refuse(name, "a string");
    return value.get<std::string>();
  }
  std::string digest(const char* name) {
    std::string value = text(name);
    if (!is_hex_digest(value)) refuse(name, "64 lower-case hex digits");
    return value;
  }
  bool boolean(const char* name) {
    const nlohmann::ordered_json& value = field(name);
    if (!value.is_boolean()) refuse(name, "true or false");
    return value.get<bool>();
  }
  const nlohmann::ordered_json& object(const char* name) {
    const nlohmann::ordered_json& value = field(name);
    if (!value.is_object()) refuse(name, "an object");
    return value;
  }
  Fields fields(const char* name) { return Fields(object(name), path_of(name) + ".", where_); }
  // After the last field: anything else in the object is refused.
  void done() const {
    for (const auto& [name, value] : object_.items())
      if (!read_.contains(name))
        fail("{}: field \"{}\" is not one of a sift batch progress file: it was changed after sift batch wrote it",
             where_.string(), path_of(name));
  }

 private:
  std::string path_of(std::string_view name) const { return prefix_ + std::string(name); }
  const nlohmann::ordered_json& field(const char* name) {
    const auto found = object_.find(name);
    if (found == object_.end()) fail("{}: field \"{}\" is missing", where_.string(), path_of(name));
    read_.insert(name);
    return *found;
  }
  [[noreturn]] void refuse(const char* name, std::string_view wanted) const {
    fail("{}: field \"{}\" must be {}", where_.string(), path_of(name), wanted);
  }

  const nlohmann::ordered_json& object_;
  std::string prefix_;
  const std::filesystem::path& where_;
  std::set<std::string, std::less<>> read_;
};

nlohmann::ordered_json file_json(const FileCheckpoint& file) {
  return {{"bytes", file.bytes},
          {"sha256", file.sha256},
          {"midstate", {{"bytes", file.midstate.bytes}, {"state", file.midstate.state}}}};
}

FileCheckpoint read_file_checkpoint(Fields& parent, const char* name) {
  Fields fields = parent.fields(name);
  Fields midstate = fields.fields("midstate");
  FileCheckpoint file{fields.count("bytes"), fields.digest("sha256"), {midstate.count("bytes"), midstate.digest("state")}};
  midstate.done();
  fields.done();
  return file;
}

// The text of the file; an Error when it is there but is no regular file or cannot be read.
std::optional<std::string> read_text(const std::filesystem::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return std::nullopt;
  if (!S_ISREG(info.st_mode)) fail("{}: is not a regular file, so not a sift batch progress file", path.string());
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) fail("{}: cannot read the progress file", path.string());
  return text.str();
}

// The checksum line must close the file and match every byte before it.
void check_checksum(const std::string& text, const nlohmann::ordered_json& object, const std::filesystem::path& path) {
  const auto checksum = object.find("checksum");
  if (checksum == object.end() || !checksum->is_string() ||
      !checksum->get<std::string>().starts_with(kChecksumPrefix) ||
      !is_hex_digest(checksum->get<std::string>().substr(kChecksumPrefix.size())))
    fail("{}: field \"checksum\" must be \"sha256:\" and 64 lower-case hex digits: the file was changed after sift "
         "batch wrote it",
         path.string());
  const std::string last = checksum_line(checksum->get<std::string>());
  const bool last_line = text.size() > last.size() && text.ends_with(last);
  if (!last_line || sha256_hex(std::string_view(text).substr(0, text.size() - last.size())) !=
                        checksum->get<std::string>().substr(kChecksumPrefix.size()))
    fail("{}: its checksum does not match its content: the file was changed or damaged after sift batch wrote it, "
         "so the job it records cannot be trusted; restore it, or remove the output and this file to start the job "
         "over",
         path.string());
}

// What the fields must say of each other.
void check_agreement(const JobProgress& c, const std::filesystem::path& path) {
  const auto shard = c.job.find("shard");
  if (shard == c.job.end() || !shard->is_string()) fail("{}: field \"job.shard\" must be a string", path.string());
  Shard parsed;
  try {
    parsed = Shard::parse(shard->get<std::string>());
  } catch (const Error& e) {
    fail("{}: field \"job.shard\": {}", path.string(), e.what());
  }
  if (c.totals.rows != shard_rows(parsed, c.lines_read))
    fail("{}: records {} rows, but shard {} of {} input lines holds {}: the fields disagree", path.string(),
         c.totals.rows, parsed.to_string(), c.lines_read, shard_rows(parsed, c.lines_read));
  if (c.totals.errors > c.totals.rows)
    fail("{}: records {} error rows of {} rows: the fields disagree", path.string(), c.totals.errors, c.totals.rows);
  if (c.resume.skip_bytes > c.input_offset)
    fail("{}: resumes {} decoded bytes into a stream, past the {} bytes read: the fields disagree", path.string(),
         c.resume.skip_bytes, c.input_offset);
  if (c.complete && c.output.pending.bytes != 0)
    fail("{}: a complete job with {} bytes of lines pending: the fields disagree", path.string(),
         c.output.pending.bytes);
  for (const auto& [name, file] : {std::pair{"output", &c.output.file}, std::pair{"pending", &c.output.pending}})
    if (!midstate_in_place(*file))
      fail("{}: field \"{}.midstate\" is not SHA-256's state at the last whole MiB of its {} bytes: the fields "
           "disagree",
           path.string(), name, file->bytes);
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
  out["output"] = file_json(c.output.file);
  out["pending"] = file_json(c.output.pending);
  out["rows"] = c.totals.rows;
  out["labels"] = c.totals.labels;
  out["errors"] = c.totals.errors;
  out["prefill_tokens"] = c.totals.prefill_tokens;
  out["complete"] = c.complete;
  out["updated_at"] = utc_timestamp();
  // Every field but the checksum, one per line, the last one followed by ",\n"; then the
  // checksum of those bytes as the last field. (An input path that is not UTF-8 is written
  // with replacement characters: it is only informative.)
  std::string text = out.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  text.resize(text.size() - 2);  // "\n}"
  text += ",\n";
  text += checksum_line(std::string(kChecksumPrefix) + sha256_hex(text));
  write_file_atomically(progress_path, text);
}

std::optional<JobProgress> read_checkpoint(const std::filesystem::path& progress_path) {
  const std::optional<std::string> text = read_text(progress_path);
  if (!text) return std::nullopt;
  nlohmann::ordered_json object;
  try {
    object = parse_json<nlohmann::ordered_json>(*text, progress_path.string());
  } catch (const Error& e) {  // parse_json's message names the file, the line and the column
    fail("not a sift batch progress file: {}", e.what());
  }
  const auto format = object.is_object() ? object.find("format") : object.end();
  if (format == object.end() || !format->is_string())
    fail("{}: not a sift batch progress file (no \"format\")", progress_path.string());
  if (format->get<std::string>() == kUnverifiedFormat) {
    std::filesystem::path output = progress_path;
    output.replace_extension();
    fail("{}: written by an earlier sift ({}), before progress files carried a checksum and the SHA-256 of the "
         "output, so this sift cannot check the job's files: finish or merge the job with the sift that started it, "
         "or remove {} and {} to start it over",
         progress_path.string(), kUnverifiedFormat, output.string(), progress_path.string());
  }
  if (format->get<std::string>() != kProgressFormat)
    fail("{}: not a sift batch progress file (\"format\" is not \"{}\")", progress_path.string(), kProgressFormat);
  check_checksum(*text, object, progress_path);

  Fields fields(object, "", progress_path);
  JobProgress c;
  fields.text("format");
  c.job = fields.object("job");
  c.input_path = fields.text("input_path");
  c.lines_read = fields.count("lines_read");
  c.input_offset = fields.count("input_offset");
  Fields resume = fields.fields("resume");
  c.resume = {resume.count("restart_offset"), resume.count("skip_bytes")};
  resume.done();
  c.output.file = read_file_checkpoint(fields, "output");
  c.output.pending = read_file_checkpoint(fields, "pending");
  c.totals = {fields.count("rows"), fields.count("labels"), fields.count("errors"), fields.count("prefill_tokens")};
  c.complete = fields.boolean("complete");
  fields.text("updated_at");
  fields.text("checksum");
  fields.done();
  check_agreement(c, progress_path);
  return c;
}

}  // namespace sift::batch
