// x86-64 AVX+FMA build of the similarity kernels; compiled with -mavx -mfma, used only when the CPU has both.
#include "kernels.hpp"

namespace edge_agent::kernels_avx_fma {
#include "kernels_impl.inc"
}  // namespace edge_agent::kernels_avx_fma
