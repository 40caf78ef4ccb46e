#include "workflows/artifact_update.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.h"
#include "io/json_parse.h"
#include "scoring/artifact.h"

namespace sift {

std::string calibrated_version(const std::string& old_version, const std::string& target_name) {
  static const std::regex calibrated(R"(^(.*)\+cal([0-9]+)-.*$)");
  std::smatch match;
  std::string base = old_version;
  long n = 1;
  if (std::regex_match(old_version, match, calibrated)) {
    base = match[1].str();
    n = std::stol(match[2].str()) + 1;
  }
  return fmt::format("{}+cal{}-{}", base, n, target_name);
}

void write_file_atomically(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::path tmp = path;
  tmp += fmt::format(".tmp-{}", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) fail("{}: cannot create: {}", tmp.string(), std::strerror(errno));
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      std::filesystem::remove(tmp);
      fail("{}: write failed: {}", tmp.string(), std::strerror(error));
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::filesystem::remove(tmp);
    fail("{}: cannot flush to disk", tmp.string());
  }
  std::error_code error;
  std::filesystem::rename(tmp, path, error);
  if (error) {
    std::filesystem::remove(tmp);
    fail("cannot replace {}: {}", path.string(), error.message());
  }
}

ArtifactUpdate write_calibrated_artifact(const std::filesystem::path& sift_json, double threshold,
                                         const std::string& target_name, nlohmann::ordered_json record) {
  const std::string where = sift_json.string();
  const ScoringArtifact old_artifact = load_scoring_artifact(sift_json);  // validates
  nlohmann::ordered_json object;
  {
    std::ifstream in(sift_json);
    object = parse_json<nlohmann::ordered_json>(in, where);
  }
  ArtifactUpdate update;
  update.old_version = old_artifact.version;
  update.old_threshold = old_artifact.threshold;
  update.new_version = calibrated_version(old_artifact.version, target_name);

  record["previous_version"] = update.old_version;
  record["previous_threshold"] = update.old_threshold;
  object["version"] = update.new_version;
  object["threshold"] = threshold;
  object["calibration"] = std::move(record);

  const std::string text = object.dump(2) + "\n";
  parse_scoring_artifact(parse_json(text, where), where);  // what is written must load
  write_file_atomically(sift_json, text);
  return update;
}

}  // namespace sift
