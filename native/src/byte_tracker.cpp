#include "byte_tracker.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "assignment.hpp"

namespace edge_agent {

namespace {

Xyah to_xyah(const BoxD& b) {
    const double w = b.x2 - b.x1, h = b.y2 - b.y1;
    return {b.x1 + w / 2, b.y1 + h / 2, w / h, h};
}

void require(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument(message);
}

// The box moved with the image by x' = R x + t: its centre mapped, its sides scaled by sqrt|det R|.
BoxD warp_box(const BoxD& b, const double* m) {
    const double scale = std::sqrt(std::fabs(m[0] * m[4] - m[1] * m[3]));
    const double cx = (b.x1 + b.x2) / 2, cy = (b.y1 + b.y2) / 2;
    const double x = m[0] * cx + m[1] * cy + m[2], y = m[3] * cx + m[4] * cy + m[5];
    const double hw = (b.x2 - b.x1) * scale / 2, hh = (b.y2 - b.y1) * scale / 2;
    return {x - hw, y - hh, x + hw, y + hh};
}

BoxD box_of(const KalmanState& kf) {
    const double h = kf.mean[3], w = kf.mean[2] * h;
    const double x1 = kf.mean[0] - w / 2, y1 = kf.mean[1] - h / 2;
    return {x1, y1, x1 + w, y1 + h};
}

}  // namespace

BoxD Track::box() const { return box_of(kf); }

ByteTracker::ByteTracker(const TrackerParams& p) : params_(p) {
    auto unit = [](double v) { return v >= 0.0 && v <= 1.0; };
    require(unit(p.high_conf_det_threshold), "high_conf_det_threshold must be in [0, 1]");
    require(unit(p.low_conf_det_threshold), "low_conf_det_threshold must be in [0, 1]");
    require(unit(p.new_track_threshold), "new_track_threshold must be in [0, 1]");
    require(unit(p.minimum_iou_threshold), "minimum_iou_threshold must be in [0, 1]");
    require(p.low_conf_det_threshold <= p.high_conf_det_threshold,
            "low_conf_det_threshold must not exceed high_conf_det_threshold");
    require(p.lost_track_buffer >= 0, "lost_track_buffer must be >= 0 frames");
    require(p.frame_rate > 0.0 && p.frame_rate < 1e6, "frame_rate must be > 0 (frames per second)");
    require(p.appearance_gate >= 0.0 && p.appearance_gate < 1e6, "appearance_gate must be >= 0 (track sizes)");
    require(p.appearance_threshold >= -1.0 && p.appearance_threshold <= 1.0,
            "appearance_threshold must be in [-1, 1] (cosine similarity)");
    max_time_lost_ = static_cast<int>(p.frame_rate / kNominalFrameRate * p.lost_track_buffer);
    frames_per_step_ = std::max(1.0, kNominalFrameRate / p.frame_rate);
    second_pass_iou_ = std::max(p.minimum_iou_threshold, kSecondPassMinIou / frames_per_step_);
}

void ByteTracker::reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    store_.clear();
    tracked_.clear();
    lost_.clear();
    frame_id_ = 0;
    dims_ = 0;
    next_internal_id_ = 0;
    next_public_id_ = 0;
}

void ByteTracker::confirm(Track& t) {
    if (!t.is_activated) {
        t.is_activated = true;
        t.public_id = ++next_public_id_;
    }
}

void ByteTracker::update_track(Track& t, const Detection& d) {
    const Xyah z = to_xyah(d.box);
    const std::int64_t gap = frame_id_ - t.frame_id;
    if (params_.observation_recovery && gap > 1) {
        // OC-SORT's re-update: back to the state of the last detection, the frames without one filled with
        // virtual observations on the line between the two boxes, so the velocity is the gap's, not a guess.
        const Xyah z0 = to_xyah(t.last_box);
        t.kf = t.observed;
        for (std::int64_t k = 1; k < gap; ++k) {
            const double f = static_cast<double>(k) / static_cast<double>(gap);
            kalman_predict(t.kf);
            kalman_update(t.kf, {z0.x + (z.x - z0.x) * f, z0.y + (z.y - z0.y) * f, z0.a + (z.a - z0.a) * f,
                                 z0.h + (z.h - z0.h) * f});
        }
        kalman_predict(t.kf);
    }
    kalman_update(t.kf, z);
    t.observed = t.kf;
    t.last_box = d.box;
    if (d.feature != nullptr && d.score >= params_.high_conf_det_threshold) {
        if (t.feature.empty()) {
            t.feature.assign(d.feature, d.feature + dims_);
        } else {
            double norm = 0;
            for (std::int64_t k = 0; k < dims_; ++k) {
                t.feature[k] = static_cast<float>(kAppearanceMomentum * t.feature[k] +
                                                  (1.0 - kAppearanceMomentum) * d.feature[k]);
                norm += static_cast<double>(t.feature[k]) * t.feature[k];
            }
            norm = std::sqrt(norm);
            if (norm > 0)
                for (std::int64_t k = 0; k < dims_; ++k) t.feature[k] = static_cast<float>(t.feature[k] / norm);
        }
    }
    t.frame_id = frame_id_;
    t.state = TrackState::Tracked;
    t.score = d.score;
    t.class_id = d.class_id;
    t.det_index = d.index;
    confirm(t);
}

void ByteTracker::associate(const std::vector<Track*>& tracks, const std::vector<const Detection*>& dets,
                            bool fuse_score, double threshold, bool appearance, bool observed, bool held) {
    edges_.clear();
    matches_.clear();
    if (tracks.empty() || dets.empty()) return;
    // Sweep over detections sorted by x1: only those starting within (track.x1 - widest - reach, track.x2 +
    // reach) can overlap the track or lie within its appearance gate.
    order_.resize(dets.size());
    double widest = 0;
    for (std::size_t j = 0; j < dets.size(); ++j) {
        order_[j] = static_cast<std::int32_t>(j);
        widest = std::max(widest, dets[j]->box.x2 - dets[j]->box.x1);
    }
    std::sort(order_.begin(), order_.end(), [&](std::int32_t a, std::int32_t b) {
        return dets[a]->box.x1 < dets[b]->box.x1 || (dets[a]->box.x1 == dets[b]->box.x1 && a < b);
    });
    starts_.resize(order_.size());
    for (std::size_t j = 0; j < order_.size(); ++j) starts_[j] = dets[order_[j]]->box.x1;
    const double gate = appearance ? params_.appearance_gate : 0.0;
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        const Track& t = *tracks[i];
        if (held && t.feature.empty()) continue;
        const BoxD tb = observed ? t.last_box : held ? box_of(t.held_kf) : t.box();
        const double reach = gate > 0 && !t.feature.empty() ? gate * std::max(tb.x2 - tb.x1, tb.y2 - tb.y1) : 0.0;
        const double cx = (tb.x1 + tb.x2) / 2, cy = (tb.y1 + tb.y2) / 2;
        auto first = std::upper_bound(starts_.begin(), starts_.end(), tb.x1 - widest - reach);
        for (auto j = static_cast<std::size_t>(first - starts_.begin());
             j < starts_.size() && starts_[j] < tb.x2 + reach; ++j) {
            const Detection& d = *dets[order_[j]];
            if (params_.class_aware && d.class_id != t.class_id) continue;
            if (held && (d.feature == nullptr || cosine_of(t, d.feature) < params_.appearance_threshold)) continue;
            double similarity = iou(tb, d.box);
            if (fuse_score) similarity *= d.score;
            if (reach > 0 && d.feature != nullptr) {
                const double dx = (d.box.x1 + d.box.x2) / 2 - cx, dy = (d.box.y1 + d.box.y2) / 2 - cy;
                const double distance = std::sqrt(dx * dx + dy * dy);
                if (distance < reach) {
                    const double cosine = cosine_of(t, d.feature);
                    if (cosine >= params_.appearance_threshold) {
                        double look = cosine * (1.0 - distance / reach);
                        if (fuse_score) look *= d.score;
                        similarity = std::max(similarity, look);
                    }
                }
            }
            if (similarity <= 0.0) continue;
            edges_.push_back({static_cast<std::int32_t>(i), order_[j], similarity});
        }
    }
    match_edges(static_cast<int>(tracks.size()), static_cast<int>(dets.size()), edges_, threshold, workspace_, matches_);
}

double ByteTracker::cosine_of(const Track& t, const float* feature) const {
    double cosine = 0;
    for (std::int64_t k = 0; k < dims_; ++k) cosine += static_cast<double>(t.feature[k]) * feature[k];
    return cosine;
}

void ByteTracker::take(const std::vector<Track*>& tracks, std::vector<const Detection*>& dets, bool fuse_score,
                       double threshold, bool appearance, bool observed, bool held) {
    associate(tracks, dets, fuse_score, threshold, appearance, observed, held);
    if (matches_.empty()) return;
    used_b_.assign(dets.size(), 0);
    for (auto [r, c] : matches_) {
        Track& t = *tracks[r];
        used_b_[c] = 1;
        if (held) {  // it moved with the camera: its state as it was before the warp
            t.kf = t.held_kf;
            t.observed = t.held_observed;
            t.last_box = t.held_box;
        }
        (t.state == TrackState::Lost ? refound_ : activated_).push_back(&t);
        update_track(t, *dets[c]);
    }
    std::size_t kept = 0;
    for (std::size_t c = 0; c < dets.size(); ++c)
        if (!used_b_[c]) dets[kept++] = dets[c];
    dets.resize(kept);
}

const std::vector<Track*>& ByteTracker::unmatched(const std::vector<Track*>& tracks) {
    unmatched_.clear();
    for (Track* t : tracks)
        if (t->det_index < 0) unmatched_.push_back(t);
    return unmatched_;
}

TrackOutput ByteTracker::update(const float* xyxy, const float* scores, const std::int32_t* class_ids,
                                std::int64_t n, bool return_predicted, const double* warp, const float* features,
                                std::int64_t dims) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (features != nullptr) {
        require(dims > 0, "features need at least one column");
        require(dims_ == 0 || dims == dims_, "features must keep their width between frames (" +
                                                  std::to_string(dims_) + " before, " + std::to_string(dims) + " now)");
        dims_ = dims;
    }
    ++frame_id_;

    features_.assign(features != nullptr ? static_cast<std::size_t>(n * dims) : 0, 0.0f);
    detections_.resize(static_cast<std::size_t>(n));
    high_.clear();
    low_.clear();
    for (std::int64_t i = 0; i < n; ++i) {
        const float* feature = nullptr;
        if (features != nullptr) {
            double norm = 0;
            for (std::int64_t k = 0; k < dims; ++k) norm += static_cast<double>(features[i * dims + k]) * features[i * dims + k];
            norm = std::sqrt(norm);
            if (norm > 0) {
                for (std::int64_t k = 0; k < dims; ++k)
                    features_[i * dims + k] = static_cast<float>(features[i * dims + k] / norm);
                feature = &features_[i * dims];
            }
        }
        detections_[i] = {box_at(xyxy, i), static_cast<double>(scores[i]), class_ids ? class_ids[i] : 0, i, feature};
        if (detections_[i].score >= params_.high_conf_det_threshold)
            high_.push_back(&detections_[i]);
        else if (detections_[i].score >= params_.low_conf_det_threshold)
            low_.push_back(&detections_[i]);
    }

    pool_.clear();
    activated_.clear();
    refound_.clear();
    newly_lost_.clear();
    for (Track* t : tracked_) {
        t->det_index = -1;
        pool_.push_back(t);
    }
    for (Track* t : lost_) {
        t->det_index = -1;
        pool_.push_back(t);
    }
    for (Track* t : pool_) {
        if (t->state != TrackState::Tracked) t->kf.mean[7] = 0.0;  // a lost box keeps its size
        kalman_predict(t->kf);
    }
    if (warp != nullptr) {
        for (Track* t : pool_) {
            t->held_kf = t->kf;
            t->held_observed = t->observed;
            t->held_box = t->last_box;
            kalman_warp(t->kf, warp);
            kalman_warp(t->observed, warp);
            t->last_box = warp_box(t->last_box, warp);
        }
    }

    // Pass 1: high-score detections against every track (IoU fused with score); then what IoU left, by
    // appearance within the gate, so that a detection a track overlaps is never taken by a look-alike.
    const bool looks = params_.appearance_gate > 0 && features != nullptr;
    left_.assign(high_.begin(), high_.end());
    take(pool_, left_, true, params_.minimum_iou_threshold);
    if (looks) take(unmatched(pool_), left_, true, params_.minimum_iou_threshold, true);
    // The held pass: on a moving camera, what is still unmatched, from its unwarped prediction, if it looks alike.
    if (warp != nullptr && features != nullptr)
        take(unmatched(pool_), left_, true, params_.minimum_iou_threshold, false, false, true);

    // Pass 2: low-score detections recover the tracks still unmatched (plain IoU).
    remaining_ = unmatched(pool_);
    take(remaining_, low_, false, second_pass_iou_);

    // OC-SORT's recovery: tracks still unmatched, from their last observed box, against the high detections
    // left over (plain IoU).
    if (params_.observation_recovery) take(unmatched(remaining_), left_, false, kRecoveryMinIou, false, true);

    // A confirmed track without a detection is lost (and waits); a track seen once and not again is dropped.
    for (Track* t : remaining_) {
        if (t->det_index >= 0) continue;
        if (!t->is_activated) {
            t->state = TrackState::Removed;
        } else if (t->state == TrackState::Tracked) {
            t->state = TrackState::Lost;
            newly_lost_.push_back(t);
        }
    }

    // New tracks from confident detections nobody claimed.
    for (std::size_t c = 0; c < left_.size(); ++c) {
        if (left_[c]->score < params_.new_track_threshold) continue;
        auto t = std::make_unique<Track>();
        t->internal_id = ++next_internal_id_;
        kalman_initiate(t->kf, to_xyah(left_[c]->box), frames_per_step_);
        t->observed = t->kf;
        t->last_box = left_[c]->box;
        if (left_[c]->feature != nullptr) t->feature.assign(left_[c]->feature, left_[c]->feature + dims_);
        t->score = left_[c]->score;
        t->class_id = left_[c]->class_id;
        t->frame_id = t->start_frame = frame_id_;
        t->det_index = left_[c]->index;
        if (frame_id_ == 1) confirm(*t);  // nothing to confirm against on the first frame
        activated_.push_back(t.get());
        store_.push_back(std::move(t));
    }

    for (Track* t : lost_)
        if (t->state == TrackState::Lost && frame_id_ - t->frame_id > max_time_lost_) t->state = TrackState::Removed;

    // Rebuild the lists in ByteTrack's order: surviving tracked, then activated, then refound; then lost.
    next_tracked_.clear();
    next_lost_.clear();
    auto add_tracked = [&](Track* t) {
        if (t->in_tracked != frame_id_) {
            t->in_tracked = frame_id_;
            next_tracked_.push_back(t);
        }
    };
    auto add_lost = [&](Track* t) {
        if (t->state == TrackState::Lost && t->in_tracked != frame_id_ && t->in_lost != frame_id_) {
            t->in_lost = frame_id_;
            next_lost_.push_back(t);
        }
    };
    for (Track* t : tracked_)
        if (t->state == TrackState::Tracked) add_tracked(t);
    for (Track* t : activated_) add_tracked(t);
    for (Track* t : refound_) add_tracked(t);
    for (Track* t : lost_) add_lost(t);
    for (Track* t : newly_lost_) add_lost(t);

    // Duplicates between tracked and lost: keep the one followed for longer. Every pair is judged on
    // the lists as built, a drop only clears the stamp.
    for (Track* a : next_tracked_) {
        const BoxD ba = a->box();
        for (Track* b : next_lost_) {
            if (params_.class_aware && a->class_id != b->class_id) continue;
            if (iou(ba, b->box()) <= kDuplicateMinIou) continue;
            if (a->frame_id - a->start_frame > b->frame_id - b->start_frame)
                b->in_lost = 0;
            else
                a->in_tracked = 0;
        }
    }
    tracked_.clear();
    lost_.clear();
    for (Track* t : next_tracked_)
        if (t->in_tracked == frame_id_) tracked_.push_back(t);
    for (Track* t : next_lost_)
        if (t->in_lost == frame_id_) lost_.push_back(t);
    store_.erase(std::remove_if(store_.begin(), store_.end(),
                                [&](const std::unique_ptr<Track>& t) {
                                    return t->in_tracked != frame_id_ && t->in_lost != frame_id_;
                                }),
                 store_.end());

    TrackOutput out;
    auto emit = [&](const Track& t) {
        const BoxD b = t.box();
        out.track_id.push_back(t.public_id);
        out.xyxy.insert(out.xyxy.end(), {static_cast<float>(b.x1), static_cast<float>(b.y1),
                                          static_cast<float>(b.x2), static_cast<float>(b.y2)});
        out.score.push_back(static_cast<float>(t.score));
        out.class_id.push_back(t.class_id);
        out.det_index.push_back(t.det_index);
    };
    for (Track* t : tracked_)
        if (t->is_activated) emit(*t);
    if (return_predicted)
        for (Track* t : lost_) emit(*t);
    return out;
}

}  // namespace edge_agent
