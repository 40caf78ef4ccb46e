#pragma once
// The BLAS libtorch multiplies with keeps a thread pool of its own: Debian's libtorch calls
// OpenBLAS (through libblas.so.3), whose pool is sized to the machine and which
// at::set_num_threads does not reach. So `sift train --threads 1` ran its matrix products on
// every core, and two runs side by side took four threads on two cores.

namespace sift::train {

// Sets the BLAS's thread count where it has one (OpenBLAS's openblas_set_num_threads, found in
// the process at run time, so any BLAS the system's alternatives select links); else nothing.
void set_blas_threads(int threads);
// The BLAS's thread count, or 0 where the BLAS has no such setting.
int blas_threads();

}  // namespace sift::train
