#pragma once
// Fitting a calibration map (scoring/calibration_map.h) to labeled items: `sift calibrate
// --fit`. Pure math in double; the data are the raw scores p_i in [0, 1] and reference labels
// y_i in {0, 1}, i = 1..n, with at least one of each label.
//
// temperature, platt: maximum likelihood. With z_i = clamped_log_odds(p_i) and a model
// q_i = sigmoid(u_i), the negative log-likelihood is
//   NLL = sum_i [ log(1 + e^{u_i}) - y_i u_i ]      (convex in u, so in any linear parameters)
// with gradient sum_i (q_i - y_i) du_i and Hessian sum_i q_i (1 - q_i) du_i du_i^T.
//   temperature: u_i = beta z_i, beta = 1 / T: one-parameter Newton on beta from 1
//   platt:       u_i = a z_i + b: two-parameter Newton on (a, b) from (1, 0)
// Each Newton step is halved until the NLL does not rise (at most 60 halvings); the fit stops
// when a step changes no parameter by more than 1e-12 (relative) or after 200 steps. Items
// that a threshold separates perfectly have no finite optimum: the slope grows until a step
// no longer helps, and beta is held to [1e-6, 1e6] (so T to [1e-6, 1e6]). A fitted slope
// (beta or a) that is not positive is an Error: such scores rank YES below NO.
//
// isotonic: the non-decreasing step function closest in squared error (the maximum-likelihood
// monotone fit), by pool-adjacent-violators. Items are sorted by score; items with equal
// scores are pooled first (ties share one value: their YES rate); then adjacent blocks are
// merged while a block's YES rate is above the next one's (compared exactly, as integer
// cross products). Each block b, spanning scores [lo_b, hi_b] with YES rate r_b, becomes the
// breakpoints (lo_b, r_b) and, when hi_b > lo_b, (hi_b, r_b); a breakpoint between two of
// equal probability is dropped (the line through them is flat anyway). So the map is r_b on
// each block's span, linear between adjacent blocks, and the end values outside the data.
#include <span>
#include <vector>

#include "scoring/calibration_map.h"

namespace sift {

// Error when the inputs differ in length, are empty, hold a score outside [0, 1] or NaN, or
// hold only one label.
CalibrationMap fit_temperature(std::span<const double> scores, const std::vector<bool>& labels);
CalibrationMap fit_platt(std::span<const double> scores, const std::vector<bool>& labels);
CalibrationMap fit_isotonic(std::span<const double> scores, const std::vector<bool>& labels);
CalibrationMap fit_calibration_map(CalibrationMethod method, std::span<const double> scores,
                                   const std::vector<bool>& labels);

}  // namespace sift
