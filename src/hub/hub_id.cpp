#include "hub/hub_id.h"

#include <algorithm>

namespace sift::hub {
namespace {

bool is_hub_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
         c == '.';
}

// One of "org" and "name".
bool is_hub_name(std::string_view name) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), is_hub_name_char)) return false;
  for (char edge : {name.front(), name.back()})
    if (edge == '-' || edge == '.') return false;
  return name.find("--") == std::string_view::npos && name.find("..") == std::string_view::npos;
}

bool is_revision(std::string_view revision) {
  if (revision.empty() || revision.size() > 255 || revision.front() == '/' || revision.back() == '/') return false;
  for (char c : revision)
    if (!is_hub_name_char(c) && c != '/') return false;
  return revision.find("..") == std::string_view::npos && revision.find("//") == std::string_view::npos;
}

}  // namespace

bool is_commit_hash(std::string_view revision) {
  return revision.size() == 40 &&
         std::all_of(revision.begin(), revision.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::optional<HubId> parse_hub_id(std::string_view text) {
  const size_t at = text.find('@');
  const std::string_view repo = text.substr(0, at);
  const std::string_view revision = at == std::string_view::npos ? std::string_view("main") : text.substr(at + 1);
  const size_t slash = repo.find('/');
  if (slash == std::string_view::npos || repo.size() > 96) return std::nullopt;
  if (!is_hub_name(repo.substr(0, slash)) || !is_hub_name(repo.substr(slash + 1)) || !is_revision(revision))
    return std::nullopt;
  return HubId{std::string(repo), std::string(revision)};
}

}  // namespace sift::hub
