#include "byte_tracker.hpp"

#include <algorithm>
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

}  // namespace

BoxD Track::box() const {
    const double h = kf.mean[3], w = kf.mean[2] * h;
    const double x1 = kf.mean[0] - w / 2, y1 = kf.mean[1] - h / 2;
    return {x1, y1, x1 + w, y1 + h};
}

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
    max_time_lost_ = static_cast<int>(p.frame_rate / 30.0 * p.lost_track_buffer);
}

void ByteTracker::reset() {
    std::lock_guard<std::mutex> lock(mutex_);
    store_.clear();
    tracked_.clear();
    lost_.clear();
    frame_id_ = 0;
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
    kalman_update(t.kf, to_xyah(d.box));
    t.frame_id = frame_id_;
    t.state = TrackState::Tracked;
    t.score = d.score;
    t.class_id = d.class_id;
    t.det_index = d.index;
    confirm(t);
}

void ByteTracker::associate(const std::vector<Track*>& tracks, const std::vector<const Detection*>& dets,
                            bool fuse_score, double threshold) {
    edges_.clear();
    matches_.clear();
    if (tracks.empty() || dets.empty()) return;
    // Sweep over detections sorted by x1: only those starting within (track.x1 - widest, track.x2) can overlap.
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
    for (std::size_t i = 0; i < tracks.size(); ++i) {
        const Track& t = *tracks[i];
        const BoxD tb = t.box();
        auto first = std::upper_bound(starts_.begin(), starts_.end(), tb.x1 - widest);
        for (auto j = static_cast<std::size_t>(first - starts_.begin()); j < starts_.size() && starts_[j] < tb.x2; ++j) {
            const Detection& d = *dets[order_[j]];
            if (params_.class_aware && d.class_id != t.class_id) continue;
            const double overlap = iou(tb, d.box);
            if (overlap <= 0.0) continue;
            edges_.push_back({static_cast<std::int32_t>(i), order_[j], fuse_score ? overlap * d.score : overlap});
        }
    }
    match_edges(static_cast<int>(tracks.size()), static_cast<int>(dets.size()), edges_, threshold, workspace_, matches_);
}

TrackOutput ByteTracker::update(const float* xyxy, const float* scores, const std::int32_t* class_ids,
                                std::int64_t n, bool return_predicted, const double* warp) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++frame_id_;

    detections_.resize(static_cast<std::size_t>(n));
    high_.clear();
    low_.clear();
    for (std::int64_t i = 0; i < n; ++i) {
        detections_[i] = {box_at(xyxy, i), static_cast<double>(scores[i]), class_ids ? class_ids[i] : 0, i};
        if (detections_[i].score >= params_.high_conf_det_threshold)
            high_.push_back(&detections_[i]);
        else if (detections_[i].score >= params_.low_conf_det_threshold)
            low_.push_back(&detections_[i]);
    }

    unconfirmed_.clear();
    pool_.clear();
    activated_.clear();
    refound_.clear();
    newly_lost_.clear();
    for (Track* t : tracked_) {
        t->det_index = -1;
        (t->is_activated ? pool_ : unconfirmed_).push_back(t);
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
        for (Track* t : pool_) kalman_warp(t->kf, warp);
        for (Track* t : unconfirmed_) kalman_warp(t->kf, warp);
    }

    // Pass 1: high-score detections against confirmed and lost tracks (IoU fused with score).
    associate(pool_, high_, true, params_.minimum_iou_threshold);
    used_a_.assign(pool_.size(), 0);
    used_b_.assign(high_.size(), 0);
    for (auto [r, c] : matches_) {
        Track& t = *pool_[r];
        used_a_[r] = used_b_[c] = 1;
        (t.state == TrackState::Tracked ? activated_ : refound_).push_back(&t);
        update_track(t, *high_[c]);
    }
    left_.clear();
    for (std::size_t c = 0; c < high_.size(); ++c)
        if (!used_b_[c]) left_.push_back(high_[c]);

    // Pass 2: low-score detections recover tracks still in the tracked state (plain IoU).
    remaining_.clear();
    for (std::size_t r = 0; r < pool_.size(); ++r)
        if (!used_a_[r] && pool_[r]->state == TrackState::Tracked) remaining_.push_back(pool_[r]);
    associate(remaining_, low_, false, kSecondPassMinIou);
    used_a_.assign(remaining_.size(), 0);
    for (auto [r, c] : matches_) {
        used_a_[r] = 1;
        update_track(*remaining_[r], *low_[c]);
        activated_.push_back(remaining_[r]);
    }
    for (std::size_t r = 0; r < remaining_.size(); ++r) {
        if (!used_a_[r]) {
            remaining_[r]->state = TrackState::Lost;
            newly_lost_.push_back(remaining_[r]);
        }
    }

    // Pass 3: tracks seen in one frame only, against the high detections left over.
    associate(unconfirmed_, left_, true, kUnconfirmedPassMinIou);
    used_a_.assign(unconfirmed_.size(), 0);
    used_b_.assign(left_.size(), 0);
    for (auto [r, c] : matches_) {
        used_a_[r] = used_b_[c] = 1;
        update_track(*unconfirmed_[r], *left_[c]);
        activated_.push_back(unconfirmed_[r]);
    }
    for (std::size_t r = 0; r < unconfirmed_.size(); ++r)
        if (!used_a_[r]) unconfirmed_[r]->state = TrackState::Removed;

    // New tracks from confident detections nobody claimed.
    for (std::size_t c = 0; c < left_.size(); ++c) {
        if (used_b_[c] || left_[c]->score < params_.new_track_threshold) continue;
        auto t = std::make_unique<Track>();
        t->internal_id = ++next_internal_id_;
        kalman_initiate(t->kf, to_xyah(left_[c]->box));
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
