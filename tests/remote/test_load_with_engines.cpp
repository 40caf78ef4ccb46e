// sift::load_with_engines (sift/engines.h) without a server: bad options are OptionErrors
// before anything is read; an engine that cannot be reached at the start is no error (it is
// checked before its first request), and scoring fails once no engine has answered for the
// timeout, naming it; the labeler is loaded without its weights. Loading for a record of the
// engines' kind (sift batch's job) waits for one to answer, and fails naming them when none does.
#include "sift/engines.h"

#include <gtest/gtest.h>

#include <string>

#include "sift/error.h"

namespace sift {
namespace {

const std::string kModel = std::string(SIFT_SOURCE_DIR) + "/models/default-labeler";

TEST(LoadWithEngines, BadOptionsAreOptionErrors) {
  for (const EngineOptions& bad : {EngineOptions{}, EngineOptions{.urls = {"https://127.0.0.1:9"}},
                                   EngineOptions{.urls = {"http://127.0.0.1:9", "http://127.0.0.1:9/"}},
                                   EngineOptions{.urls = {"http://127.0.0.1:9"}, .timeout_seconds = 0},
                                   EngineOptions{.urls = {"http://127.0.0.1:9"}, .timeout_seconds = 1e12},
                                   EngineOptions{.urls = {"http://127.0.0.1:9"}, .timeout_seconds = 86400.5},
                                   EngineOptions{.urls = {"http://127.0.0.1:9"}, .max_in_flight = 0}})
    EXPECT_THROW(load_with_engines(kModel, bad), OptionError);
}

TEST(LoadWithEngines, NoEngineAnsweringFailsTheCallNamingIt) {
  // Port 9 (discard) on loopback: nothing listens there, so every connection is refused.
  const Labeler labeler = load_with_engines(kModel, {.urls = {"http://127.0.0.1:9"}, .timeout_seconds = 0.5});
  EXPECT_FALSE(labeler.version().empty());
  try {
    labeler.score("Ten years of Python", {"Python"});
    FAIL() << "scored with no engine";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no engine answered for 0.5 s"), std::string::npos) << what;
    EXPECT_NE(what.find("http://127.0.0.1:9: cannot connect"), std::string::npos) << what;
  }
}

TEST(LoadWithEngines, TheEnginesKindWaitsForAnEngineToAnswer) {
  try {
    load_with_engines_of_known_kind(kModel, {.urls = {"http://127.0.0.1:9"}, .timeout_seconds = 0.5});
    FAIL() << "a kind without an engine";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("no engine answered for 0.5 s (--engine-timeout) to say which labeler it serves"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("http://127.0.0.1:9"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace sift
