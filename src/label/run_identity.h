#pragma once
// The run id written into the label store (its times: core/utc_time.h).
#include <string>

namespace sift::label {

// A new run id: the start time and 32 random bits, "20261201T030100Z-9f3a07c1".
std::string new_run_id();

}  // namespace sift::label
