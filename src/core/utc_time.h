#pragma once
// The one form of a time sift writes (the label store's started_at / finished_at /
// labeled_at, sift calibrate's calibrated_at, sift batch's OUT.progress updated_at):
// UTC, ISO 8601 with milliseconds, "2026-12-01T03:01:00.123Z", which sorts as text.
#include <chrono>
#include <string>

namespace sift {

std::string utc_timestamp(std::chrono::system_clock::time_point at = std::chrono::system_clock::now());

}  // namespace sift
