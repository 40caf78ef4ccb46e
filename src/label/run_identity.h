#pragma once
// Names and times written into the label store.
#include <string>

namespace sift::label {

// Now, UTC, ISO 8601 with milliseconds: "2026-12-01T03:01:00.123Z" (sorts as text).
std::string utc_timestamp();
// A new run id: the start time and 32 random bits, "20261201T030100Z-9f3a07c1".
std::string new_run_id();

}  // namespace sift::label
