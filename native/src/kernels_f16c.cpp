// x86-64 F16C conversion of half-precision rows to float; compiled with -mavx -mf16c, used only when the CPU
// has both (similarity.cpp falls back to a lookup table).
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels.hpp"

namespace edge_agent::kernels_f16c {

void halves_to_floats(const std::uint16_t* src, float* dst, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h;
        std::memcpy(&h, src + i, sizeof(h));
        const __m256 f = _mm256_cvtph_ps(h);
        std::memcpy(dst + i, &f, sizeof(f));
    }
    for (; i < n; ++i) dst[i] = _cvtsh_ss(src[i]);
}

}  // namespace edge_agent::kernels_f16c
