// Portable build of the similarity kernels (the compiler's baseline instruction set).
#include "kernels.hpp"

namespace edge_agent::kernels_base {
#include "kernels_impl.inc"
}  // namespace edge_agent::kernels_base

namespace edge_agent {

const DotKernels& dot_kernels() {
#ifdef EDGE_AGENT_HAVE_AVX_FMA_KERNELS
    static const DotKernels avx_fma{kernels_avx_fma::dot_block, kernels_avx_fma::squared_norms,
                                       kernels_avx_fma::dot_and_norms, "avx+fma"};
#endif
    static const DotKernels base{kernels_base::dot_block, kernels_base::squared_norms, kernels_base::dot_and_norms,
                                   "baseline"};
#ifdef EDGE_AGENT_HAVE_AVX_FMA_KERNELS
    static const bool use_avx_fma = __builtin_cpu_supports("avx") && __builtin_cpu_supports("fma");
    if (use_avx_fma) return avx_fma;
#endif
    return base;
}

}  // namespace edge_agent
