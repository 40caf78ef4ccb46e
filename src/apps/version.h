#pragma once
// `sift --version`: the version, the commit it was built from and how it was built.
#include <string>

namespace sift::apps {
std::string version_text();
}
