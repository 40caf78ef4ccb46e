#pragma once
// The pages of `sift review` (src/review/assets/: HTML, CSS, JavaScript written for it, no
// library), compiled into the binary by cmake/embed_files.cmake: nothing is read from disk or
// fetched at run time.
#include <optional>
#include <string_view>

namespace sift::review {

struct Asset {
  std::string_view name;          // its file name in src/review/assets/
  std::string_view content_type;  // from its extension
  std::string_view bytes;
};

// The asset of this file name, if there is one.
std::optional<Asset> find_asset(std::string_view name);

}  // namespace sift::review
