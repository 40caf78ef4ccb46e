#pragma once
// `sift --version`: the version, the commit it was built from and how it was built.
#include <string>

namespace sift::apps {
std::string version_text();
// The commit built from, e.g. "fc8bc25" or "fc8bc25-dirty" (generated at build time by
// cmake/git_commit.cmake).
const char* git_commit();
}
