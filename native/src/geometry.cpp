#include "geometry.hpp"

namespace edge_agent {

void iou_matrix(const float* a, std::int64_t n, const float* b, std::int64_t m, float* out) {
    for (std::int64_t i = 0; i < n; ++i) {
        const BoxD bi = box_at(a, i);
        for (std::int64_t j = 0; j < m; ++j) out[i * m + j] = static_cast<float>(iou(bi, box_at(b, j)));
    }
}

SeparationResult separation(const std::int64_t* frames_a, const float* boxes_a, std::int64_t k,
                            const std::int64_t* frames_b, const float* boxes_b, std::int64_t l,
                            double iou_threshold, std::int64_t min_shared_frames, double min_fraction) {
    std::int64_t shared = 0, apart = 0;
    for (std::int64_t i = 0, j = 0; i < k && j < l;) {
        if (frames_a[i] < frames_b[j]) {
            ++i;
        } else if (frames_b[j] < frames_a[i]) {
            ++j;
        } else {
            ++shared;
            if (iou(box_at(boxes_a, i), box_at(boxes_b, j)) < iou_threshold) ++apart;
            ++i;
            ++j;
        }
    }
    const double fraction = shared > 0 ? static_cast<double>(apart) / static_cast<double>(shared) : 0.0;
    return {shared > 0 && shared >= min_shared_frames && fraction >= min_fraction, shared, fraction};
}

}  // namespace edge_agent
