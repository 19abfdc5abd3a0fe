// Dot-product kernels for embedding similarity. The same source (kernels_impl.inc) is compiled once
// portably and, on x86-64, once more with AVX+FMA; the driver picks one at run time.
#pragma once

#include <cstdint>

namespace edge_agent {

struct DotKernels {
    // dots[i * nb + j] = <queries[i], base[j]>; queries: nq x d, base: nb x d, both row-major.
    void (*dot_block)(const float* queries, std::int64_t nq, const float* base, std::int64_t nb, std::int64_t d,
                      float* dots);
    // norm2[j] = <base[j], base[j]>
    void (*squared_norms)(const float* base, std::int64_t nb, std::int64_t d, float* norm2);
    // One query: dots[j] = <query, base[j]> and norm2[j] = <base[j], base[j]> in a single pass over base.
    void (*dot_and_norms)(const float* query, const float* base, std::int64_t nb, std::int64_t d, float* dots,
                          float* norm2);
    const char* isa;
};

const DotKernels& dot_kernels();  // the best set this CPU runs

namespace kernels_base {
void dot_block(const float*, std::int64_t, const float*, std::int64_t, std::int64_t, float*);
void squared_norms(const float*, std::int64_t, std::int64_t, float*);
void dot_and_norms(const float*, const float*, std::int64_t, std::int64_t, float*, float*);
}  // namespace kernels_base

#ifdef EDGE_AGENT_HAVE_AVX_FMA_KERNELS
namespace kernels_avx_fma {
void dot_block(const float*, std::int64_t, const float*, std::int64_t, std::int64_t, float*);
void squared_norms(const float*, std::int64_t, std::int64_t, float*);
void dot_and_norms(const float*, const float*, std::int64_t, std::int64_t, float*, float*);
}  // namespace kernels_avx_fma
#endif

#ifdef EDGE_AGENT_HAVE_F16C_KERNELS
namespace kernels_f16c {
// dst[i] = float(src[i]) for n IEEE half-precision values (eight per instruction).
void halves_to_floats(const std::uint16_t* src, float* dst, std::int64_t n);
}  // namespace kernels_f16c
#endif

}  // namespace edge_agent
