#include "hub/hub_download.h"

#include <fcntl.h>
#include <httplib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <vector>

#include "core/error.h"
#include "core/log.h"
#include "core/progress.h"
#include "hub/hub_cache.h"
#include "io/atomic_file.h"
#include "io/checkpoint.h"
#include "io/content_hash.h"
#include "io/own_file.h"
#include "io/path_lock.h"

namespace sift::hub {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMaxHubFileBytes = uint64_t(1) << 40;  // 1 TiB: a size past it is refused
constexpr int kMaxHubRedirects = 5;
constexpr int kHubTransferTries = 3;

std::optional<std::string> download_env(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

std::string trimmed(std::string text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start]))) ++start;
  return text.substr(start);
}

// "https://host:port/prefix?query" as origin ("https://host:port") and path ("/prefix?query").
struct HubUrl {
  std::string origin, path;
};

HubUrl split_hub_url(const std::string& url, std::string_view what) {
  const size_t scheme_end = url.find("://");
  const std::string scheme = scheme_end == std::string::npos ? "" : url.substr(0, scheme_end);
  if ((scheme != "http" && scheme != "https") || url.size() == scheme_end + 3)
    fail("{}: \"{}\" is not an http:// or https:// URL", what, url);
  const size_t path_start = url.find('/', scheme_end + 3);
  if (path_start == std::string::npos) return {url, "/"};
  return {url.substr(0, path_start), url.substr(path_start)};
}

// The URL of `location` (a Location header) seen from `from`: absolute, or a path on its origin.
std::string resolve_location(const HubUrl& from, const std::string& location) {
  if (location.starts_with("http://") || location.starts_with("https://")) return location;
  if (location.starts_with("/")) return from.origin + location;
  fail("{}{}: redirected to \"{}\", which is not a URL or an absolute path", from.origin, from.path, location);
}

std::string percent_encoded(std::string_view text, bool keep_slash) {
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/'))
      out += char(c);
    else
      out += fmt::format("%{:02X}", c);
  }
  return out;
}

// An etag header as a blob name: W/ and quotes dropped; 40 (git blob) or 64 (SHA-256) hex
// digits, else an Error (the name becomes a path in the cache).
std::string blob_name(std::string etag, std::string_view where) {
  if (etag.starts_with("W/")) etag.erase(0, 2);
  etag.erase(std::remove(etag.begin(), etag.end(), '"'), etag.end());
  const bool hex = std::all_of(etag.begin(), etag.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  if (!hex || (etag.size() != 40 && etag.size() != 64))
    fail("{}: the Hub's etag \"{}\" is not a hash (40 or 64 hex digits)", where, etag);
  std::transform(etag.begin(), etag.end(), etag.begin(), [](char c) { return char(std::tolower(c)); });
  return etag;
}

uint64_t header_size(const std::string& value, std::string_view where) {
  if (value.empty() || value.size() > 19 || !std::all_of(value.begin(), value.end(), ::isdigit))
    fail("{}: the Hub's size \"{}\" is not a number of bytes", where, value);
  const uint64_t size = std::stoull(value);
  if (size > kMaxHubFileBytes)
    fail("{}: the Hub says it is {} bytes, more than sift downloads ({} bytes)", where, size, kMaxHubFileBytes);
  return size;
}

// What a HEAD of a file says about it.
struct HubFile {
  std::string name;          // "config.json"
  std::string commit, etag;  // X-Repo-Commit; the blob's name
  uint64_t size = 0;
  bool lfs = false;          // its etag is the SHA-256 of its bytes
  std::string download_url;  // where its bytes are
  bool on_hub = true;        // download_url is the Hub's resolve URL (not an LFS redirect's), which gets the token
};

class HubSession {
 public:
  HubSession(const HubSettings& settings, const HubId& id) : settings_(settings), id_(id) {}

  // The file at `revision`; nullopt when the repository has no such file there (404), with
  // `absent_commit` the commit the answer named.
  std::optional<HubFile> head(const std::string& revision, const std::string& file,
                              std::optional<std::string>& absent_commit) {
    const std::string where = fmt::format("{}@{}: {}", id_.repo, revision, file);
    std::string url = fmt::format("{}/{}/resolve/{}/{}", settings_.endpoint, id_.repo,
                                  percent_encoded(revision, false), percent_encoded(file, true));
    for (int redirects = 0;; ++redirects) {
      const HubUrl at = split_hub_url(url, "HF_ENDPOINT");
      httplib::Result result = client(at.origin).Head(at.path, headers(at.origin, true));
      if (!result) unreachable(at, result.error());
      const httplib::Response& answer = result.value();
      if (answer.status >= 300 && answer.status < 400 && answer.has_header("Location")) {
        const std::string location = answer.get_header_value("Location");
        const bool relative = location.starts_with("/");
        if (!relative || !answer.get_header_value("X-Linked-Etag").empty())
          return described(where, file, answer, resolve_location(at, location), false);  // an LFS file elsewhere
        if (redirects == kMaxHubRedirects) fail("{}: more than {} redirects", where, kMaxHubRedirects);
        url = resolve_location(at, location);
        continue;
      }
      if (answer.status == 404 && answer.get_header_value("X-Error-Code") != "RepoNotFound" &&
          answer.get_header_value("X-Error-Code") != "RevisionNotFound") {
        const std::string commit = answer.get_header_value("X-Repo-Commit");
        if (is_commit_hash(commit)) absent_commit = commit;
        return std::nullopt;
      }
      if (answer.status != 200) refuse(revision, file, answer);
      return described(where, file, answer, url, true);
    }
  }

  // Downloads bytes [have, file.size) of `file` onto the end of `fd`. Returns the bytes the
  // file holds afterwards (a transfer cut short leaves fewer than file.size). An answer that
  // is no file's (an error status, a wrong length or range) is an Error.
  uint64_t transfer(const HubFile& file, int fd, uint64_t have, ProgressReporter& progress) {
    std::string url = file.download_url;
    for (int redirects = 0;; ++redirects) {
      const HubUrl at = split_hub_url(url, file.name);
      httplib::Headers request_headers = headers(at.origin, file.on_hub && redirects == 0);
      if (have > 0) request_headers.emplace("Range", fmt::format("bytes={}-", have));
      std::string redirect, refusal;
      int status = 0;
      httplib::Result result = client(at.origin).Get(
          at.path, request_headers,
          [&](const httplib::Response& answer) {
            status = answer.status;
            if (status >= 300 && status < 400) {
              redirect = answer.get_header_value("Location");
              return false;
            }
            if (status == 200 && have > 0) {  // the range was not honoured: the whole file again
              if (::ftruncate(fd, 0) != 0) refusal = fmt::format("cannot truncate the partial download");
              have = 0;
            } else if (status == 206) {
              const std::string range = answer.get_header_value("Content-Range");
              if (!range.starts_with(fmt::format("bytes {}-", have)))
                refusal = fmt::format("asked for bytes {}- and got the range \"{}\"", have, range);
            } else if (status != 200) {
              refusal = fmt::format("answered {}", status);
            }
            const std::string length = answer.get_header_value("Content-Length");
            if (refusal.empty() && !length.empty() && length != std::to_string(file.size - have))
              refusal = fmt::format("sent a length of {} bytes where {} remain of {}", length, file.size - have,
                                    file.size);
            return refusal.empty();
          },
          [&](const char* data, size_t size) {
            if (have + size > file.size) {
              refusal = fmt::format("sent more than its {} bytes", file.size);
              return false;
            }
            int error = 0;
            if (write_fully(fd, std::string_view(data, size), error) != size) {
              refusal = fmt::format("cannot write the download: {}", std::strerror(error));
              return false;
            }
            have += size;
            progress.update(int64_t(have >> 10));
            return true;
          });
      if (!redirect.empty()) {
        if (redirects == kMaxHubRedirects) fail("{}: more than {} redirects", file.name, kMaxHubRedirects);
        url = resolve_location(at, redirect);
        continue;
      }
      if (status == 401 || status == 403 || status == 404) {
        httplib::Response answer;
        answer.status = status;
        refuse(file.commit, file.name, answer);
      }
      if (!refusal.empty()) fail("{}/{}: {} {}", id_.repo, file.name, at.origin, refusal);
      if (!result && have < file.size)
        spdlog::warn("{}/{}: the transfer from {} stopped at {} of {} bytes ({})", id_.repo, file.name, at.origin,
                     have, file.size, httplib::to_string(result.error()));
      return have;
    }
  }

 private:
  httplib::Client& client(const std::string& origin) {
    std::unique_ptr<httplib::Client>& client = clients_[origin];
    if (!client) {
      client = std::make_unique<httplib::Client>(origin);
      client->set_connection_timeout(settings_.connect_timeout);
      client->set_read_timeout(settings_.read_timeout);
      client->set_write_timeout(settings_.read_timeout);
      client->set_follow_location(false);
      client->set_decompress(false);
    }
    return *client;
  }

  // The token goes to the endpoint alone, never where a redirect leads (an LFS file's bytes are
  // on a CDN, whose signed URL needs none), as huggingface_hub does.
  httplib::Headers headers(const std::string& origin, bool may_send_token) const {
    httplib::Headers headers{{"Accept-Encoding", "identity"}, {"User-Agent", "sift"}};
    if (settings_.token && may_send_token && origin == split_hub_url(settings_.endpoint, "HF_ENDPOINT").origin)
      headers.emplace("Authorization", "Bearer " + *settings_.token);
    return headers;
  }

  HubFile described(const std::string& where, const std::string& file, const httplib::Response& answer,
                    const std::string& download_url, bool on_hub) const {
    HubFile described;
    described.name = file;
    described.commit = answer.get_header_value("X-Repo-Commit");
    if (!is_commit_hash(described.commit))
      fail("{}: {} is not the Hub: its answer names no commit (X-Repo-Commit \"{}\")", where, settings_.endpoint,
           described.commit);
    const std::string linked = answer.get_header_value("X-Linked-Etag");
    described.lfs = !linked.empty();
    described.etag = blob_name(described.lfs ? linked : answer.get_header_value("ETag"), where);
    if (described.lfs && described.etag.size() != 64)
      fail("{}: the Hub's X-Linked-Etag \"{}\" is not a SHA-256", where, described.etag);
    const std::string size = answer.get_header_value("X-Linked-Size");
    described.size = header_size(size.empty() ? answer.get_header_value("Content-Length") : size, where);
    described.download_url = download_url;
    described.on_hub = on_hub;
    return described;
  }

  [[noreturn]] void unreachable(const HubUrl& at, httplib::Error error) const {
    fail("{}: cannot reach {}: {} (HF_ENDPOINT sets the Hub's address; with HF_HUB_OFFLINE=1 sift uses the cache "
         "alone)",
         id_.repo, at.origin, httplib::to_string(error));
  }

  [[noreturn]] void refuse(const std::string& revision, const std::string& file, const httplib::Response& answer) const {
    const std::string code = answer.get_header_value("X-Error-Code");
    if (answer.status == 401 || answer.status == 403) {
      if (settings_.token)
        fail("{}: the Hub refused the token of HF_TOKEN ({} for {}): the model is gated or private and the token has "
             "no access to it (or there is no such model). Accept its terms at {}/{} with the token's account, or "
             "set HF_TOKEN to a token that has access",
             id_.repo, answer.status, file, settings_.endpoint, id_.repo);
      fail("{}: the Hub answered {} for {}: the model is gated or private (or there is no such model). Accept its "
           "terms at {}/{}, make a token in your account's settings and set HF_TOKEN to it (export HF_TOKEN=hf_...)",
           id_.repo, answer.status, file, settings_.endpoint, id_.repo);
    }
    if (code == "RepoNotFound") fail("{}: no such model on {} (404)", id_.repo, settings_.endpoint);
    if (code == "RevisionNotFound")
      fail("{}: no revision \"{}\" (a branch, tag or commit) on {} (404)", id_.repo, revision, settings_.endpoint);
    if (answer.status == 404) fail("{}@{}: the repository has no {} (404)", id_.repo, revision, file);
    fail("{}@{}: {} answered {} for {}", id_.repo, revision, settings_.endpoint, answer.status, file);
  }

  const HubSettings& settings_;
  const HubId& id_;
  std::map<std::string, std::unique_ptr<httplib::Client>> clients_;
};

// The snapshot's link to its blob: snapshots/<commit>/<file> -> ../../blobs/<etag>.
void link_snapshot_file(const fs::path& repo_dir, const HubFile& file) {
  const fs::path link = repo_dir / "snapshots" / file.commit / file.name;
  fs::create_directories(link.parent_path());
  std::error_code ignored;
  fs::remove(link, ignored);
  fs::create_symlink(fs::path("..") / ".." / "blobs" / file.etag, link);
}

// blobs/<etag>, downloaded unless it is there, resumed from blobs/<etag>.incomplete.
void download_blob(HubSession& session, const fs::path& cache, const fs::path& repo_dir, const HubId& id,
                   const HubFile& file, bool show_progress) {
  const fs::path blob = repo_dir / "blobs" / file.etag;
  std::error_code error;
  if (fs::is_regular_file(blob, error) && fs::file_size(blob, error) == file.size) return;
  fs::create_directories(blob.parent_path());
  const fs::path lock_dir = cache / ".locks" / repo_dir.filename();
  fs::create_directories(lock_dir);
  const PathLock lock(lock_dir / file.etag);
  const fs::path partial = repo_dir / "blobs" / (file.etag + ".incomplete");
  const int fd = open_own_file(partial, O_WRONLY | O_CREAT | O_APPEND, "a partial download");
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  uint64_t have = uint64_t(::lseek(fd, 0, SEEK_END));
  if (have > file.size) {  // not this file's start: begin again
    if (::ftruncate(fd, 0) != 0) fail("{}: cannot truncate: {}", partial.string(), std::strerror(errno));
    have = 0;
  }
  const fs::space_info space = fs::space(blob.parent_path(), error);
  if (!error && space.available < file.size - have)
    fail("{}/{}: {} bytes to download and {} free in {}", id.repo, file.name, file.size - have, space.available,
         blob.parent_path().string());
  if (have > 0) spdlog::info("{}/{}: resuming at byte {} of {}", id.repo, file.name, have, file.size);
  ProgressReporter progress = ProgressReporter::to_stderr(id.repo + "/" + file.name, "KiB",
                                                          int64_t((file.size + 1023) >> 10), !show_progress);
  for (int tries = 1; have < file.size; ++tries) {
    const uint64_t before = have;
    have = session.transfer(file, fd, have, progress);
    if (have < file.size && (tries == kHubTransferTries || (have == before && tries > 1)))
      fail("{}/{}: the download stopped at byte {} of {} ({} tries); run again to resume it from {}", id.repo,
           file.name, have, file.size, tries, partial.string());
  }
  if (::fsync(fd) != 0) fail("{}: cannot sync: {}", partial.string(), std::strerror(errno));
  if (file.lfs) {
    const std::string sha = sha256_file_hex(partial);
    if (sha != file.etag) {
      fs::remove(partial, error);
      fail("{}/{}: the download's SHA-256 is {}, the Hub's is {}: refused and deleted (run again to download it "
           "anew)",
           id.repo, file.name, sha, file.etag);
    }
  }
  fs::rename(partial, blob);
  progress.finish(fmt::format("{} bytes", file.size));
}

// The file named `name` at the commit, in the cache; nullopt when the repository has none.
std::optional<HubFile> fetch_file(HubSession& session, const fs::path& cache, const fs::path& repo_dir,
                                  const HubId& id, const std::string& commit, const std::string& name,
                                  bool required, bool show_progress) {
  std::optional<std::string> absent_commit;
  std::optional<HubFile> file = session.head(commit, name, absent_commit);
  if (!file) {
    if (required) fail("{}@{}: the repository has no {}, which sift needs", id.repo, id.revision, name);
    const fs::path marker = repo_dir / ".no_exist" / absent_commit.value_or(commit) / name;
    fs::create_directories(marker.parent_path());
    std::ofstream touch(marker, std::ios::app);
    return std::nullopt;
  }
  if (file->commit != commit)
    fail("{}: {} answered for commit {}, not {}", id.repo, name, file->commit, commit);
  download_blob(session, cache, repo_dir, id, *file, show_progress);
  link_snapshot_file(repo_dir, *file);
  return file;
}

}  // namespace

HubSettings hub_settings_from_environment() {
  HubSettings settings;
  if (const std::optional<std::string> endpoint = download_env("HF_ENDPOINT")) {
    settings.endpoint = *endpoint;
    while (settings.endpoint.ends_with('/')) settings.endpoint.pop_back();
    split_hub_url(settings.endpoint, "HF_ENDPOINT");
  }
  if (const std::optional<std::string> offline = download_env("HF_HUB_OFFLINE")) {
    std::string upper = *offline;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return char(std::toupper(c)); });
    settings.offline = upper == "1" || upper == "ON" || upper == "YES" || upper == "TRUE";
  }
  if (std::optional<std::string> token = download_env("HF_TOKEN")) {
    settings.token = trimmed(*token);
  } else {
    const std::optional<std::string> token_path = download_env("HF_TOKEN_PATH");
    std::ifstream in(token_path ? fs::path(*token_path) : hf_home_dir() / "token");
    if (in) settings.token = trimmed(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  }
  if (settings.token && settings.token->empty()) settings.token.reset();
  return settings;
}

fs::path download_model_files(const fs::path& cache, const HubId& id, const HubSettings& settings, bool show_progress) {
  const fs::path repo_dir = repo_cache_dir(cache, id.repo);
  spdlog::info("{}: downloading from {} into {}", id.text(), settings.endpoint, repo_dir.string());
  HubSession session(settings, id);
  // config.json at the revision names the commit; every other file is asked for at that
  // commit, so a branch moving meanwhile never mixes two commits' files.
  std::optional<std::string> absent_commit;
  const std::optional<HubFile> config = session.head(id.revision, "config.json", absent_commit);
  if (!config) fail("{}@{}: the repository has no config.json: it is not a Hugging Face model", id.repo, id.revision);
  const std::string commit = config->commit;
  fs::create_directories(repo_dir);
  write_ref(repo_dir, id.revision, commit);
  download_blob(session, cache, repo_dir, id, *config, show_progress);
  link_snapshot_file(repo_dir, *config);
  fetch_file(session, cache, repo_dir, id, commit, "tokenizer.json", true, show_progress);
  fetch_file(session, cache, repo_dir, id, commit, "sift.json", false, show_progress);
  const fs::path snapshot = repo_dir / "snapshots" / commit;
  if (fetch_file(session, cache, repo_dir, id, commit, "model.safetensors.index.json", false, show_progress)) {
    for (const std::string& shard : index_shard_files(snapshot / "model.safetensors.index.json"))
      fetch_file(session, cache, repo_dir, id, commit, shard, true, show_progress);
  } else {
    fetch_file(session, cache, repo_dir, id, commit, "model.safetensors", true, show_progress);
  }
  return snapshot;
}

}  // namespace sift::hub
