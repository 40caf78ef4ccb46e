#pragma once
// sift::version(): the version of the sift library a program runs with ("0.1.0").
#include <string_view>

namespace sift {

std::string_view version();

}  // namespace sift
