// ByteTrack's constant-velocity Kalman filter on (centre x, centre y, aspect w/h, height) and their
// velocities; noise scales with the box height, as in SORT/DeepSORT/ByteTrack.
#pragma once

#include <cmath>

namespace edge_agent {

struct KalmanState {
    double mean[8];
    double cov[64];  // row-major 8 x 8
};

struct Xyah {
    double x, y, a, h;
};

inline constexpr double kStdWeightPosition = 1.0 / 20.0;
inline constexpr double kStdWeightVelocity = 1.0 / 160.0;

// A new track: its place is the detection's, its velocity unknown. `frames`: frames of a 30 fps video between
// two samples (ByteTrack's noise is per such frame): the velocity is per sample, so its spread across the
// image is that many times ByteTrack's (a thing seen once at 2 fps may have moved 15 frames' worth by the
// next); the height's rate keeps ByteTrack's.
inline void kalman_initiate(KalmanState& s, const Xyah& z, double frames = 1.0) {
    const double h = z.h, across = 10 * kStdWeightVelocity * h * frames;
    const double std[8] = {2 * kStdWeightPosition * h, 2 * kStdWeightPosition * h, 1e-2,
                           2 * kStdWeightPosition * h, across, across, 1e-5, 10 * kStdWeightVelocity * h};
    const double m[8] = {z.x, z.y, z.a, z.h, 0, 0, 0, 0};
    for (int i = 0; i < 8; ++i) {
        s.mean[i] = m[i];
        for (int j = 0; j < 8; ++j) s.cov[i * 8 + j] = i == j ? std[i] * std[i] : 0.0;
    }
}

inline void kalman_predict(KalmanState& s) {
    const double h = s.mean[3];
    const double std[8] = {kStdWeightPosition * h, kStdWeightPosition * h, 1e-2, kStdWeightPosition * h,
                           kStdWeightVelocity * h, kStdWeightVelocity * h, 1e-5, kStdWeightVelocity * h};
    for (int i = 0; i < 4; ++i) s.mean[i] += s.mean[i + 4];
    // cov <- F cov F^T + Q with F = [[I, I], [0, I]].
    double t[64];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) t[i * 8 + j] = s.cov[i * 8 + j] + (i < 4 ? s.cov[(i + 4) * 8 + j] : 0.0);
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) s.cov[i * 8 + j] = t[i * 8 + j] + (j < 4 ? t[i * 8 + j + 4] : 0.0);
    for (int i = 0; i < 8; ++i) s.cov[i * 8 + i] += std[i] * std[i];
}

inline void kalman_update(KalmanState& s, const Xyah& z) {
    const double h = s.mean[3];
    const double r[4] = {kStdWeightPosition * h, kStdWeightPosition * h, 1e-1, kStdWeightPosition * h};
    // Innovation covariance S = H P H^T + R, with H selecting the first four state components.
    double S[16];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) S[i * 4 + j] = s.cov[i * 8 + j] + (i == j ? r[i] * r[i] : 0.0);
    // S^-1 through its Cholesky factor S = L L^T: S^-1 = L^-T L^-1 (4 x 4, symmetric positive definite).
    double L[16] = {0}, Li[16] = {0}, Si[16];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j <= i; ++j) {
            double sum = S[i * 4 + j];
            for (int k = 0; k < j; ++k) sum -= L[i * 4 + k] * L[j * 4 + k];
            L[i * 4 + j] = i == j ? std::sqrt(sum) : sum / L[j * 4 + j];
        }
    for (int i = 0; i < 4; ++i) {
        Li[i * 4 + i] = 1.0 / L[i * 4 + i];
        for (int j = 0; j < i; ++j) {
            double sum = 0;
            for (int k = j; k < i; ++k) sum -= L[i * 4 + k] * Li[k * 4 + j];
            Li[i * 4 + j] = sum * Li[i * 4 + i];
        }
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double sum = 0;
            for (int k = (i > j ? i : j); k < 4; ++k) sum += Li[k * 4 + i] * Li[k * 4 + j];
            Si[i * 4 + j] = sum;
        }
    // Gain K = P H^T S^-1 (8 x 4); P H^T is the first four columns of P.
    double K[32];
    for (int a = 0; a < 8; ++a)
        for (int j = 0; j < 4; ++j) {
            double sum = 0;
            for (int k = 0; k < 4; ++k) sum += s.cov[a * 8 + k] * Si[k * 4 + j];
            K[a * 4 + j] = sum;
        }
    const double innovation[4] = {z.x - s.mean[0], z.y - s.mean[1], z.a - s.mean[2], z.h - s.mean[3]};
    for (int a = 0; a < 8; ++a)
        for (int j = 0; j < 4; ++j) s.mean[a] += K[a * 4 + j] * innovation[j];
    // cov <- cov - K S K^T = cov - K (P H^T)^T, since K S = P H^T.
    double PHt[32];
    for (int b = 0; b < 8; ++b)
        for (int j = 0; j < 4; ++j) PHt[b * 4 + j] = s.cov[b * 8 + j];
    for (int a = 0; a < 8; ++a)
        for (int b = 0; b < 8; ++b) {
            double sum = 0;
            for (int j = 0; j < 4; ++j) sum += K[a * 4 + j] * PHt[b * 4 + j];
            s.cov[a * 8 + b] -= sum;
        }
}

// Camera-motion compensation (BoT-SORT's GMC): the image moved by x' = R x + t (a partial affine: rotation,
// uniform scale s = sqrt|det R|, translation), so the state moves with it: centre by R and t, velocity by R,
// height and its rate by s, the aspect kept; the covariance as M P M^T with M that linear map.
inline void kalman_warp(KalmanState& s, const double warp[6]) {
    const double r00 = warp[0], r01 = warp[1], tx = warp[2], r10 = warp[3], r11 = warp[4], ty = warp[5];
    const double scale = std::sqrt(std::fabs(r00 * r11 - r01 * r10));
    double M[64] = {0};
    M[0 * 8 + 0] = r00, M[0 * 8 + 1] = r01, M[1 * 8 + 0] = r10, M[1 * 8 + 1] = r11;
    M[2 * 8 + 2] = 1.0, M[3 * 8 + 3] = scale;
    M[4 * 8 + 4] = r00, M[4 * 8 + 5] = r01, M[5 * 8 + 4] = r10, M[5 * 8 + 5] = r11;
    M[6 * 8 + 6] = 1.0, M[7 * 8 + 7] = scale;
    double mean[8];
    for (int i = 0; i < 8; ++i) {
        double sum = 0;
        for (int k = 0; k < 8; ++k) sum += M[i * 8 + k] * s.mean[k];
        mean[i] = sum;
    }
    mean[0] += tx, mean[1] += ty;
    double t[64];
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            double sum = 0;
            for (int k = 0; k < 8; ++k) sum += M[i * 8 + k] * s.cov[k * 8 + j];
            t[i * 8 + j] = sum;
        }
    for (int i = 0; i < 8; ++i) {
        s.mean[i] = mean[i];
        for (int j = 0; j < 8; ++j) {
            double sum = 0;
            for (int k = 0; k < 8; ++k) sum += t[i * 8 + k] * M[j * 8 + k];
            s.cov[i * 8 + j] = sum;
        }
    }
}

}  // namespace edge_agent
