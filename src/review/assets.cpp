#include "review/assets.h"

#include <span>

namespace sift::review {

// Generated (cmake/embed_files.cmake): every file of src/review/assets/ as bytes.
struct EmbeddedFile {
  std::string_view name;
  std::string_view bytes;
};
std::span<const EmbeddedFile> embedded_review_assets();

namespace {

std::string_view content_type_of(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

std::optional<Asset> find_asset(std::string_view name) {
  for (const EmbeddedFile& file : embedded_review_assets())
    if (file.name == name) return Asset{file.name, content_type_of(file.name), file.bytes};
  return std::nullopt;
}

}  // namespace sift::review
