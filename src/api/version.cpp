#include "sift/version.h"

// Set by CMakeLists.txt on this file only.
#ifndef SIFT_VERSION
#define SIFT_VERSION "unknown"
#endif

namespace sift {

std::string_view version() { return SIFT_VERSION; }

}  // namespace sift
