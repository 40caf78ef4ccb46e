#pragma once
// OpenBLAS picks its kernels once, as it is loaded, from the CPU's family and model. A CPU newer
// than its table gets the generic SSE3 kernels it calls "Prescott": Debian 12's OpenBLAS (0.3.21)
// does so on an Emerald Rapids Xeon (family 6, model 207), where a training step (libtorch
// multiplies with OpenBLAS) then took 2.1x (scoring labeler) to 2.5x (generation labeler) as long
// as with the AVX-512 kernels. OPENBLAS_CORETYPE overrides the choice, but it is read only at load
// time, so a program that multiplies with OpenBLAS (sift-train, the benchmarks that take OpenBLAS
// as a yardstick) sets it and runs itself again.
#include <string>

namespace sift {

// The OpenBLAS kernel set this CPU's instructions allow: "SkylakeX" (AVX-512 F, CD, BW, DQ and
// VL), "Haswell" (AVX2 and FMA), "Sandybridge" (AVX), or "" for none of these.
std::string blas_kernels_for_this_cpu();

// The kernels the loaded BLAS uses ("OpenBLAS SkylakeX"), or "" when it is not OpenBLAS.
std::string blas_kernels_in_use();

// When the loaded OpenBLAS took "Prescott" on a CPU that has better kernels and
// OPENBLAS_CORETYPE is unset: sets OPENBLAS_CORETYPE and runs this executable again with the
// same arguments (/proc/self/exe, /proc/self/cmdline), so it does not return. Otherwise (another
// BLAS, a CPU OpenBLAS knows, the variable set by the user, or exec failing) it returns having
// changed nothing.
void rerun_with_cpu_blas_kernels();

}  // namespace sift
