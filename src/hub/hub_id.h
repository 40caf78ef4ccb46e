#pragma once
// A Hugging Face Hub model id as `--model` takes it: "org/name" or "org/name@revision", where
// the revision is a branch, a tag or a commit (40 hex digits); "main" when none is given.
// The names follow the Hub's own rule: letters, digits, '-', '_' and '.', neither starting
// nor ending with '-' or '.', no "--" or "..", 96 characters at most for "org/name". A
// revision is letters, digits and "-_./" without "..", an empty segment or a leading '/' (it
// becomes a file path under refs/ in the cache). Anything else is not a Hub id.
#include <optional>
#include <string>
#include <string_view>

namespace sift::hub {

struct HubId {
  std::string repo;      // "org/name"
  std::string revision;  // "main", "v1.0", "refs/pr/3", or a commit
  std::string text() const { return repo + "@" + revision; }
};

std::optional<HubId> parse_hub_id(std::string_view text);

// Whether `revision` is a full commit hash: 40 lower-case hex digits (what X-Repo-Commit and
// refs/<branch> hold, and what names a snapshot folder).
bool is_commit_hash(std::string_view revision);

}  // namespace sift::hub
