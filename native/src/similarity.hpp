// Embedding similarity for identity association (GEB section 3.3): the two-threshold association test
// over many candidate entities at once, and blocked cosine top-k for candidate search.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace edge_agent {

// Thrown (and turned into ValueError) when an input row cannot be compared: NaN, inf or zero norm.
struct BadRow {
    std::string argument;
    std::int64_t row;
    std::string problem;
};

struct AssociationOutput {
    std::vector<std::int64_t> owner;  // distinct owners, ascending
    std::vector<char> qualifies;      // q x owners
    std::vector<float> min_sim, max_sim, mean_sim;
};

// Cosine similarity of each query to every reference, reduced per owner. Thresholds compare in float32.
AssociationOutput association_test(const float* queries, std::int64_t nq, const float* refs, std::int64_t nr,
                                   const std::int64_t* ref_owner, std::int64_t d, float tau_low, float tau_high);

// Top-k cosine similarity of each query over base rows (float32, or IEEE half when base_f16 is given).
// k is clamped to n; results per query are sorted by score descending, ties by lower index. Large scans
// are split over `threads` threads (0: one per core, for scans big enough to pay for starting them).
void cosine_topk(const float* queries, std::int64_t nq, const float* base_f32, const std::uint16_t* base_f16,
                 std::int64_t n, std::int64_t d, std::int64_t k, std::int64_t* indices, float* scores, int threads);

// Plain <a, b> over rows with the dispatched kernels, used by tests and benchmarks.
const char* kernel_isa();

}  // namespace edge_agent
