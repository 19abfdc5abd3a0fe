// Box geometry: IoU between box sets and GEB's shared-frame separation test (GEB section 3.3).
// Boxes are (x1, y1, x2, y2) in pixels; arithmetic is in double, results are returned as the caller asks.
#pragma once

#include <cstdint>

namespace edge_agent {

struct BoxD {
    double x1, y1, x2, y2;
};

inline BoxD box_at(const float* xyxy, std::int64_t row) {
    const float* p = xyxy + 4 * row;
    return {p[0], p[1], p[2], p[3]};
}

// Intersection over union; 0 when either box has no area (or is inverted) or they do not meet.
inline double iou(const BoxD& a, const BoxD& b) {
    const double iw = (a.x2 < b.x2 ? a.x2 : b.x2) - (a.x1 > b.x1 ? a.x1 : b.x1);
    if (!(iw > 0.0)) return 0.0;
    const double ih = (a.y2 < b.y2 ? a.y2 : b.y2) - (a.y1 > b.y1 ? a.y1 : b.y1);
    if (!(ih > 0.0)) return 0.0;
    const double inter = iw * ih;
    const double uni = (a.x2 - a.x1) * (a.y2 - a.y1) + (b.x2 - b.x1) * (b.y2 - b.y1) - inter;
    return uni > 0.0 ? inter / uni : 0.0;
}

// out[i * m + j] = IoU(a[i], b[j]).
void iou_matrix(const float* a, std::int64_t n, const float* b, std::int64_t m, float* out);

struct SeparationResult {
    bool separated;
    std::int64_t shared;
    double fraction;
};

// Frames must be strictly increasing within each observation (checked by the caller).
// separated = shared >= min_shared_frames and (frames with IoU < iou_threshold) / shared >= min_fraction.
SeparationResult separation(const std::int64_t* frames_a, const float* boxes_a, std::int64_t k,
                            const std::int64_t* frames_b, const float* boxes_b, std::int64_t l,
                            double iou_threshold, std::int64_t min_shared_frames, double min_fraction);

}  // namespace edge_agent
