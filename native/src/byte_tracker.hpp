// ByteTrack (Zhang et al., ECCV 2022) for within-clip tracking: one tracklet in one clip becomes one
// observation (GEB section 3.1). Exact assignment in passes (confident detections, then weak ones), Kalman
// motion model; with appearance (one vector per detection) the tracks and detections IoU left unmatched are
// matched by appearance within a gate of the track's predicted place (BoT-SORT's fusion of motion and
// appearance); on a moving camera (a warp) with appearance vectors, the tracks still unmatched are matched by their
// unwarped prediction to a confident detection that looks alike (the held pass: a thing in the wearer's hand moves
// with the camera, so the warp takes its prediction away from it); and OC-SORT's observation-centric recovery (a lost track matched from its last observed box) and
// re-update (the gap filled with virtual observations before the new one, so a re-found track's velocity is not
// stale).
// Frames sampled below the 30 fps ByteTrack was tuned at (the product samples 2 fps, where a walker moves
// further than their width between frames) follow the sampling rate: a new track's velocity across the image
// may be as many times ByteTrack's as there are frames between two samples, and the weak detections' pass asks
// for ByteTrack's IoU 0.5 divided by that number (never less than the first pass's threshold). Tracks seen once
// join the first pass, and weak detections may find a lost track again, as in roboflow's ByteTrack.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "assignment.hpp"
#include "geometry.hpp"
#include "kalman.hpp"

namespace edge_agent {

struct TrackerParams {
    double high_conf_det_threshold = 0.5;  // score >= this: first pass and new tracks
    double low_conf_det_threshold = 0.1;   // low <= score < high: second (recovery) pass only
    double new_track_threshold = 0.6;      // an unmatched high detection starts a track if score >= this
    double minimum_iou_threshold = 0.2;    // first pass: IoU x score must exceed this
    int lost_track_buffer = 30;            // frames (at 30 fps) a lost track waits to be found again
    double frame_rate = 30.0;
    bool class_aware = false;              // match only detections of the track's class
    double appearance_gate = 0.0;          // > 0: appearance may match within this many track sizes of its
                                           // predicted centre (0: IoU only, as ByteTrack)
    double appearance_threshold = 0.8;     // cosine similarity a track's appearance needs to match that way
    bool observation_recovery = true;      // OC-SORT's recovery and re-update
};

// ByteTrack's threshold for the weak detections' pass (plain IoU) at one frame between samples.
inline constexpr double kSecondPassMinIou = 0.5;
// The frame rate ByteTrack's Kalman noise and the lost-track buffer are counted in.
inline constexpr double kNominalFrameRate = 30.0;
// A tracked and a lost track overlapping more than this are duplicates; the younger one is dropped.
inline constexpr double kDuplicateMinIou = 0.85;
// OC-SORT: the recovery pass needs plain IoU above this between a track's last observed box and a detection.
inline constexpr double kRecoveryMinIou = 0.3;
// BoT-SORT: a track's appearance is the moving average of its confident detections' (this much of the old).
inline constexpr double kAppearanceMomentum = 0.9;

struct TrackOutput {
    std::vector<std::int64_t> track_id;
    std::vector<float> xyxy;
    std::vector<float> score;
    std::vector<std::int32_t> class_id;
    std::vector<std::int64_t> det_index;
};

enum class TrackState { Tracked, Lost, Removed };

struct Track {
    std::int64_t internal_id = 0;
    std::int64_t public_id = -1;  // allocated when the track is confirmed
    KalmanState kf{};
    TrackState state = TrackState::Tracked;
    bool is_activated = false;
    double score = 0;
    std::int32_t class_id = 0;
    std::int64_t frame_id = 0;  // last frame with a detection
    std::int64_t start_frame = 0;
    std::int64_t det_index = -1;  // detection matched in the current frame
    std::int64_t in_tracked = 0;  // frame stamps: member of the rebuilt lists of that frame
    std::int64_t in_lost = 0;
    std::vector<float> feature;  // appearance: unit moving average of confident detections' vectors, or empty
    KalmanState observed{};      // the state right after the last detection (OC-SORT's re-update starts here)
    BoxD last_box{};             // the last detection's box (OC-SORT's recovery)
    // Before this frame's warp (a moving camera): the prediction, last state and box as if the thing moved with the
    // camera (held by the wearer), for the held pass.
    KalmanState held_kf{};
    KalmanState held_observed{};
    BoxD held_box{};
    BoxD box() const;
};

class ByteTracker {
public:
    explicit ByteTracker(const TrackerParams& params);

    // xyxy: n x 4, scores: n, class_ids: n. Inputs are validated by the caller. warp: null, or the 2 x 3
    // row-major affine transform the image moved by since the last frame (camera motion), applied to every
    // track's state after its prediction, before association (BoT-SORT). features: null, or n x dims
    // appearance vectors (any scale; compared by cosine); dims must stay the same between frames (checked).
    TrackOutput update(const float* xyxy, const float* scores, const std::int32_t* class_ids, std::int64_t n,
                       bool return_predicted, const double* warp = nullptr, const float* features = nullptr,
                       std::int64_t dims = 0);
    void reset();

    const TrackerParams& params() const { return params_; }
    std::int64_t frame_id() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return frame_id_;
    }
    std::size_t num_tracked() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return tracked_.size();
    }
    std::size_t num_lost() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return lost_.size();
    }

private:
    struct Detection {
        BoxD box;
        double score;
        std::int32_t class_id;
        std::int64_t index;
        const float* feature;  // unit length, or null
    };

    // Pairs (track, detection) whose boxes overlap, with IoU (times the detection score if fuse_score)
    // as similarity, into edges_; with `appearance`, also pairs within the gate whose appearance is similar
    // enough, at cosine x (1 - distance / gate) when that is more; then the exact matching above `threshold`
    // into matches_. `observed`: compare the tracks' last observed boxes instead of their predictions. `held`:
    // their unwarped predictions, and only detections that look alike (appearance_threshold).
    void associate(const std::vector<Track*>& tracks, const std::vector<const Detection*>& dets, bool fuse_score,
                   double threshold, bool appearance = false, bool observed = false, bool held = false);
    // associate(), then each matched track updated with its detection and filed as activated (or refound, if
    // it was lost; with `held`, from its unwarped state); the matched detections are removed from dets.
    void take(const std::vector<Track*>& tracks, std::vector<const Detection*>& dets, bool fuse_score,
              double threshold, bool appearance = false, bool observed = false, bool held = false);
    // Cosine of a track's appearance and a detection's unit vector.
    double cosine_of(const Track& t, const float* feature) const;
    // The tracks without a detection this frame (in a buffer reused by the next call).
    const std::vector<Track*>& unmatched(const std::vector<Track*>& tracks);
    void update_track(Track& t, const Detection& d);
    void confirm(Track& t);

    TrackerParams params_;
    int max_time_lost_;
    double frames_per_step_;  // frames of 30 fps between two samples (15 at 2 fps; at least 1)
    double second_pass_iou_;  // the weak detections' IoU threshold at this rate
    std::int64_t frame_id_ = 0;
    std::int64_t next_internal_id_ = 0;
    std::int64_t next_public_id_ = 0;
    std::vector<std::unique_ptr<Track>> store_;  // owns every live track
    std::vector<Track*> tracked_;                 // ByteTrack's tracked list (confirmed and not), in order
    std::vector<Track*> lost_;                    // ByteTrack's lost list, in order
    mutable std::mutex mutex_;

    // Per-frame buffers, kept to avoid allocating every frame.
    std::vector<Detection> detections_;
    std::int64_t dims_ = 0;        // width of the appearance vectors seen so far (0: none yet)
    std::vector<float> features_;  // this frame's detection vectors, unit length
    std::vector<const Detection*> high_, low_, left_;
    std::vector<Track*> pool_, remaining_, unmatched_, activated_, refound_, newly_lost_, next_tracked_, next_lost_;
    std::vector<Edge> edges_;
    std::vector<Match> matches_;
    std::vector<std::int32_t> order_;
    std::vector<double> starts_;
    std::vector<char> used_b_;
    MatchWorkspace workspace_;
};

}  // namespace edge_agent
