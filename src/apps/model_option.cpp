#include "apps/model_option.h"

#include <unistd.h>

#include "apps/cli.h"
#ifdef SIFT_HAVE_HUB
#include "hub/model_source.h"
#endif

namespace sift::apps {

std::string model_directory(const std::string& model) {
#ifdef SIFT_HAVE_HUB
  const bool show_progress = ::isatty(STDERR_FILENO) && !global_options().quiet;
  return hub::resolve_model_source(model, show_progress).string();
#else
  return model;
#endif
}

bool is_hub_model(const std::string& model) {
#ifdef SIFT_HAVE_HUB
  return hub::names_hub_model(model);
#else
  return false;
#endif
}

}  // namespace sift::apps
