// pybind11 bindings: NumPy arrays in and out, shapes and values checked here (ValueError naming the
// argument and the expected shape), the GIL released while C++ loops run. Dtype conversion is done by
// edge_agent/native.py, so these functions take exact dtypes and C-contiguous arrays only.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "assignment.hpp"
#include "byte_tracker.hpp"
#include "geometry.hpp"
#include "similarity.hpp"
#include "sparse.hpp"

namespace py = pybind11;
using namespace edge_agent;

namespace {

template <typename T>
using carray = py::array_t<T, py::array::c_style>;

std::string shape_text(const py::array& a) {
    std::ostringstream s;
    s << "(";
    for (py::ssize_t i = 0; i < a.ndim(); ++i) s << (i ? ", " : "") << a.shape(i);
    if (a.ndim() == 1) s << ",";
    s << ")";
    return s.str();
}

// dims: required extent per axis, -1 for any. expected: how the shape is written in messages.
void require_shape(const py::array& a, const char* name, std::initializer_list<py::ssize_t> dims, const char* expected) {
    bool ok = a.ndim() == static_cast<py::ssize_t>(dims.size());
    py::ssize_t axis = 0;
    for (py::ssize_t want : dims) {
        if (ok && want >= 0 && a.shape(axis) != want) ok = false;
        ++axis;
    }
    if (!ok) throw py::value_error(std::string(name) + " must have shape " + expected + ", got " + shape_text(a));
}

void require_finite(const float* p, py::ssize_t count, py::ssize_t row_width, const char* name) {
    for (py::ssize_t i = 0; i < count; ++i)
        if (!std::isfinite(p[i]))
            throw py::value_error(std::string(name) + " contains NaN or inf (row " + std::to_string(i / row_width) + ")");
}

void require_boxes(const carray<float>& xyxy, const char* name, bool positive_area) {
    require_shape(xyxy, name, {-1, 4}, "(N, 4) as x1, y1, x2, y2");
    const float* p = xyxy.data();
    require_finite(p, xyxy.size(), 4, name);
    for (py::ssize_t i = 0; i < xyxy.shape(0); ++i) {
        const float* b = p + 4 * i;
        if (b[2] < b[0] || b[3] < b[1])
            throw py::value_error(std::string(name) + " row " + std::to_string(i) + " has x2 < x1 or y2 < y1");
        if (positive_area && (b[2] == b[0] || b[3] == b[1]))
            throw py::value_error(std::string(name) + " row " + std::to_string(i) +
                                  " has zero width or height; a tracker cannot follow a box without area");
    }
}

void require_increasing(const carray<std::int64_t>& frames, const char* name) {
    const std::int64_t* f = frames.data();
    for (py::ssize_t i = 1; i < frames.shape(0); ++i)
        if (f[i] <= f[i - 1])
            throw py::value_error(std::string(name) + " must be strictly increasing (one box per frame); row " +
                                  std::to_string(i) + " is not");
}

void require_unit_or_less(double v, const char* name) {
    if (!(v >= 0.0 && v <= 1.0)) throw py::value_error(std::string(name) + " must be in [0, 1]");
}

template <typename T>
py::array_t<T> to_array(std::vector<T>&& v, std::vector<py::ssize_t> shape) {
    py::array_t<T> a(shape);
    if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
    return a;
}

py::array_t<bool> to_bool_array(const std::vector<char>& v, std::vector<py::ssize_t> shape) {
    py::array_t<bool> a(shape);
    bool* out = a.mutable_data();
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] != 0;
    return a;
}

[[noreturn]] void raise_bad_row(const BadRow& bad) {
    throw py::value_error(bad.argument + " row " + std::to_string(bad.row) + " " + bad.problem);
}

py::tuple tracker_update(ByteTracker& tracker, const carray<float>& xyxy, const carray<float>& scores,
                         const std::optional<carray<std::int32_t>>& class_ids, bool return_predicted,
                         const std::optional<py::array_t<double, py::array::c_style | py::array::forcecast>>& warp,
                         const std::optional<carray<float>>& features) {
    require_boxes(xyxy, "xyxy", true);
    const py::ssize_t n = xyxy.shape(0);
    require_shape(scores, "scores", {n}, "(N,) matching xyxy");
    require_finite(scores.data(), n, 1, "scores");
    for (py::ssize_t i = 0; i < n; ++i)
        if (scores.data()[i] < 0.0f || scores.data()[i] > 1.0f)
            throw py::value_error("scores must be in [0, 1] (row " + std::to_string(i) + ")");
    const std::int32_t* classes = nullptr;
    if (class_ids) {
        require_shape(*class_ids, "class_ids", {n}, "(N,) matching xyxy");
        classes = class_ids->data();
    }
    const double* motion = nullptr;
    if (warp) {
        if (warp->ndim() != 2 || warp->shape(0) != 2 || warp->shape(1) != 3)
            throw py::value_error("warp must have shape (2, 3): the affine transform of the image since the last frame");
        for (int i = 0; i < 6; ++i)
            if (!std::isfinite(warp->data()[i])) throw py::value_error("warp must be finite");
        motion = warp->data();
    }
    const float* looks = nullptr;
    std::int64_t dims = 0;
    if (features) {
        require_shape(*features, "features", {n, -1}, "(N, D) matching xyxy");
        dims = static_cast<std::int64_t>(features->shape(1));
        if (dims < 1) throw py::value_error("features must have at least one column");
        require_finite(features->data(), n * dims, dims, "features");
        looks = features->data();
    }
    TrackOutput out;
    {
        py::gil_scoped_release release;
        out = tracker.update(xyxy.data(), scores.data(), classes, n, return_predicted, motion, looks, dims);
    }
    const auto m = static_cast<py::ssize_t>(out.track_id.size());
    return py::make_tuple(to_array(std::move(out.track_id), {m}), to_array(std::move(out.xyxy), {m, 4}),
                          to_array(std::move(out.score), {m}), to_array(std::move(out.class_id), {m}),
                          to_array(std::move(out.det_index), {m}));
}

py::array_t<float> py_iou_matrix(const carray<float>& a, const carray<float>& b) {
    require_boxes(a, "a", false);
    require_boxes(b, "b", false);
    const py::ssize_t n = a.shape(0), m = b.shape(0);
    py::array_t<float> out({n, m});
    float* o = out.mutable_data();
    {
        py::gil_scoped_release release;
        iou_matrix(a.data(), n, b.data(), m, o);
    }
    return out;
}

py::tuple py_separation(const carray<std::int64_t>& frames_a, const carray<float>& boxes_a,
                        const carray<std::int64_t>& frames_b, const carray<float>& boxes_b, double iou_threshold,
                        std::int64_t min_shared_frames, double min_fraction) {
    require_shape(frames_a, "frames_a", {-1}, "(K,)");
    require_boxes(boxes_a, "boxes_a", false);
    require_shape(boxes_a, "boxes_a", {frames_a.shape(0), 4}, "(K, 4) matching frames_a");
    require_shape(frames_b, "frames_b", {-1}, "(L,)");
    require_boxes(boxes_b, "boxes_b", false);
    require_shape(boxes_b, "boxes_b", {frames_b.shape(0), 4}, "(L, 4) matching frames_b");
    require_increasing(frames_a, "frames_a");
    require_increasing(frames_b, "frames_b");
    require_unit_or_less(iou_threshold, "iou_threshold");
    require_unit_or_less(min_fraction, "min_fraction");
    if (min_shared_frames < 1) throw py::value_error("min_shared_frames must be >= 1");
    SeparationResult r;
    {
        py::gil_scoped_release release;
        r = separation(frames_a.data(), boxes_a.data(), frames_a.shape(0), frames_b.data(), boxes_b.data(),
                       frames_b.shape(0), iou_threshold, min_shared_frames, min_fraction);
    }
    return py::make_tuple(r.separated, r.shared, r.fraction);
}

py::tuple py_association_test(const carray<float>& queries, const carray<float>& refs,
                              const carray<std::int64_t>& ref_owner, double tau_low, double tau_high) {
    require_shape(queries, "query", {-1, -1}, "(Q, D)");
    const py::ssize_t d = queries.shape(1);
    if (d == 0) throw py::value_error("query must have D >= 1 dimensions");
    require_shape(refs, "refs", {-1, d}, "(R, D) with D matching query");
    require_shape(ref_owner, "ref_owner", {refs.shape(0)}, "(R,) matching refs");
    // NaN and inf are caught per row by the norm check inside the single pass over the data.
    if (!(tau_low >= -1.0 && tau_low <= 1.0)) throw py::value_error("tau_low must be in [-1, 1]");
    if (!(tau_high >= -1.0 && tau_high <= 1.0)) throw py::value_error("tau_high must be in [-1, 1]");
    if (tau_low > tau_high) throw py::value_error("tau_low must not exceed tau_high");
    AssociationOutput out;
    BadRow bad;
    bool failed = false;
    {
        py::gil_scoped_release release;
        try {
            out = association_test(queries.data(), queries.shape(0), refs.data(), refs.shape(0), ref_owner.data(), d,
                                   static_cast<float>(tau_low), static_cast<float>(tau_high));
        } catch (const BadRow& e) {
            bad = e;
            failed = true;
        }
    }
    if (failed) raise_bad_row(bad);
    const py::ssize_t q = queries.shape(0), u = static_cast<py::ssize_t>(out.owner.size());
    return py::make_tuple(to_array(std::move(out.owner), {u}), to_bool_array(out.qualifies, {q, u}),
                          to_array(std::move(out.min_sim), {q, u}), to_array(std::move(out.max_sim), {q, u}),
                          to_array(std::move(out.mean_sim), {q, u}));
}

py::tuple py_cosine_topk(const carray<float>& queries, const py::array& base, std::int64_t k, int threads) {
    require_shape(queries, "queries", {-1, -1}, "(Q, D)");
    const py::ssize_t d = queries.shape(1);
    if (d == 0) throw py::value_error("queries must have D >= 1 dimensions");
    const bool is_f32 = py::isinstance<carray<float>>(base) && py::dtype::of<float>().is(base.dtype());
    const bool is_f16 = base.dtype().kind() == 'f' && base.dtype().itemsize() == 2;
    if (!is_f32 && !is_f16) throw py::type_error("base must be float32 or float16");
    if (!(base.flags() & py::array::c_style)) throw py::type_error("base must be C-contiguous");
    require_shape(base, "base", {-1, d}, "(N, D) with D matching queries");
    if (k < 1) throw py::value_error("k must be >= 1");
    if (threads < 0) throw py::value_error("threads must be >= 0 (0: one per core)");
    const py::ssize_t q = queries.shape(0), n = base.shape(0);
    const py::ssize_t kk = std::min<py::ssize_t>(k, n);
    py::array_t<std::int64_t> indices({q, kk});
    py::array_t<float> scores({q, kk});
    const float* base_f32 = is_f32 ? static_cast<const float*>(base.data()) : nullptr;
    const auto* base_f16 = is_f16 ? static_cast<const std::uint16_t*>(base.data()) : nullptr;
    std::int64_t* idx = indices.mutable_data();
    float* sc = scores.mutable_data();
    BadRow bad;
    bool failed = false;
    {
        py::gil_scoped_release release;
        try {
            cosine_topk(queries.data(), q, base_f32, base_f16, n, d, k, idx, sc, threads);
        } catch (const BadRow& e) {
            bad = e;
            failed = true;
        }
    }
    if (failed) raise_bad_row(bad);
    return py::make_tuple(indices, scores);
}

py::tuple py_linear_assignment(const carray<float>& similarity, double min_similarity) {
    require_shape(similarity, "similarity", {-1, -1}, "(N, M)");
    require_finite(similarity.data(), similarity.size(), std::max<py::ssize_t>(similarity.shape(1), 1), "similarity");
    if (!std::isfinite(min_similarity)) throw py::value_error("min_similarity must be finite");
    const py::ssize_t n = similarity.shape(0), m = similarity.shape(1);
    if (n > INT32_MAX || m > INT32_MAX) throw py::value_error("similarity is too large");
    std::vector<Match> matches;
    {
        py::gil_scoped_release release;
        std::vector<Edge> edges;
        const float* s = similarity.data();
        for (py::ssize_t i = 0; i < n; ++i)
            for (py::ssize_t j = 0; j < m; ++j)
                if (s[i * m + j] > min_similarity)
                    edges.push_back({static_cast<std::int32_t>(i), static_cast<std::int32_t>(j), s[i * m + j]});
        MatchWorkspace workspace;
        match_edges(static_cast<int>(n), static_cast<int>(m), edges, min_similarity, workspace, matches);
    }
    const auto k = static_cast<py::ssize_t>(matches.size());
    py::array_t<std::int64_t> rows({k}), cols({k});
    for (py::ssize_t t = 0; t < k; ++t) {
        rows.mutable_data()[t] = matches[t].first;
        cols.mutable_data()[t] = matches[t].second;
    }
    return py::make_tuple(rows, cols);
}

py::array_t<double> py_csr_matvec(const carray<std::int64_t>& indptr, const carray<std::int32_t>& indices,
                                  const carray<double>& data, const carray<double>& x, int threads) {
    require_shape(indptr, "indptr", {-1}, "(n_rows + 1,)");
    const py::ssize_t n_rows = indptr.shape(0) - 1;
    if (n_rows < 0) throw py::value_error("indptr must have at least one entry");
    require_shape(indices, "indices", {-1}, "(nnz,)");
    require_shape(data, "data", {indices.shape(0)}, "(nnz,) matching indices");
    require_shape(x, "x", {-1}, "(n_cols,)");
    const std::int64_t* p = indptr.data();
    if (p[0] != 0 || p[n_rows] != indices.shape(0)) throw py::value_error("indptr must start at 0 and end at nnz");
    for (py::ssize_t r = 0; r < n_rows; ++r)
        if (p[r + 1] < p[r]) throw py::value_error("indptr must be non-decreasing");
    const std::int32_t* idx = indices.data();
    for (py::ssize_t k = 0; k < indices.shape(0); ++k)
        if (idx[k] < 0 || idx[k] >= x.shape(0)) throw py::value_error("indices must be in [0, len(x))");
    py::array_t<double> y(n_rows);
    double* out = y.mutable_data();
    {
        py::gil_scoped_release release;
        csr_matvec(p, idx, data.data(), x.data(), out, n_rows, threads);
    }
    return y;
}

// A patch's arrays, as edge_agent.native.Patch holds them, checked against its base.
struct PatchArrays {
    carray<std::int64_t> base_starts, starts;
    carray<std::int32_t> nodes;
    carray<std::int64_t> indptr;
    carray<std::int32_t> indices;
    carray<float> data;
    carray<double> degree;

    explicit PatchArrays(const py::tuple& t) {
        if (t.size() != 7)
            throw py::value_error("patch must be (base_starts, starts, nodes, indptr, indices, data, degree)");
        base_starts = t[0].cast<carray<std::int64_t>>();
        starts = t[1].cast<carray<std::int64_t>>();
        nodes = t[2].cast<carray<std::int32_t>>();
        indptr = t[3].cast<carray<std::int64_t>>();
        indices = t[4].cast<carray<std::int32_t>>();
        data = t[5].cast<carray<float>>();
        degree = t[6].cast<carray<double>>();
        require_shape(base_starts, "patch base_starts", {-1}, "(blocks + 1,)");
        if (base_starts.shape(0) < 2) throw py::value_error("patch base_starts must hold at least one block");
        require_shape(starts, "patch starts", {base_starts.shape(0)}, "(blocks + 1,) matching base_starts");
        require_shape(nodes, "patch nodes", {-1}, "(rows,)");
        require_shape(indptr, "patch indptr", {nodes.shape(0) + 1}, "(rows + 1,)");
        require_shape(indices, "patch indices", {-1}, "(nnz,)");
        require_shape(data, "patch data", {indices.shape(0)}, "(nnz,) matching indices");
        require_shape(degree, "patch degree", {nodes.shape(0)}, "(rows,)");
        if (indptr.data()[nodes.shape(0)] != indices.shape(0)) throw py::value_error("patch indptr[-1] must be nnz");
    }

    PatchView view() const {
        return {base_starts.data(), starts.data(), base_starts.shape(0) - 1, nodes.data(), nodes.shape(0),
                indptr.data(), indices.data(), data.data(), degree.data()};
    }
};

CsrView csr_view(const carray<std::int64_t>& indptr, const carray<std::int32_t>& indices, const carray<float>& data,
                 const double* degree) {
    require_shape(indptr, "indptr", {-1}, "(n_nodes + 1,)");
    const py::ssize_t n_nodes = indptr.shape(0) - 1;
    if (n_nodes < 0) throw py::value_error("indptr must have at least one entry");
    require_shape(indices, "indices", {-1}, "(nnz,)");
    require_shape(data, "data", {indices.shape(0)}, "(nnz,) matching indices");
    if (indptr.data()[0] != 0 || indptr.data()[n_nodes] != indices.shape(0))
        throw py::value_error("indptr must start at 0 and end at nnz");
    return {indptr.data(), indices.data(), data.data(), degree, n_nodes};
}

py::tuple py_ppr_push(const carray<std::int64_t>& indptr, const carray<std::int32_t>& indices, const carray<float>& data,
                      const carray<std::int32_t>& seed_nodes, const carray<double>& seed_weights, double restart,
                      double epsilon, std::int64_t max_pushes, const std::optional<py::tuple>& patch) {
    const CsrView base = csr_view(indptr, indices, data, nullptr);
    require_shape(seed_nodes, "seed_nodes", {-1}, "(n_seeds,)");
    require_shape(seed_weights, "seed_weights", {seed_nodes.shape(0)}, "(n_seeds,) matching seed_nodes");
    if (max_pushes < 0) throw py::value_error("max_pushes must be >= 0");
    std::optional<PatchArrays> arrays;
    PatchView view{};
    if (patch) {
        arrays.emplace(*patch);
        view = arrays->view();
    }
    PushResult result;
    {
        py::gil_scoped_release release;
        if (arrays) check_patch(base, view);
        result = ppr_push(base, arrays ? &view : nullptr, seed_nodes.data(), seed_weights.data(), seed_nodes.shape(0),
                          restart, epsilon, max_pushes);
    }
    py::array_t<std::int32_t> nodes(static_cast<py::ssize_t>(result.nodes.size()));
    py::array_t<double> values(static_cast<py::ssize_t>(result.values.size()));
    std::copy(result.nodes.begin(), result.nodes.end(), nodes.mutable_data());
    std::copy(result.values.begin(), result.values.end(), values.mutable_data());
    return py::make_tuple(nodes, values, result.pushes, result.residual);
}

// A vector handed to NumPy without a copy: the array owns it (a million-observation graph's arrays are 100 MB).
template <typename T>
py::array_t<T> adopt(std::vector<T>&& values) {
    auto* owned = new std::vector<T>(std::move(values));
    py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
    return py::array_t<T>({static_cast<py::ssize_t>(owned->size())}, {static_cast<py::ssize_t>(sizeof(T))},
                          owned->data(), owner);
}

py::tuple stochastic_arrays(RowStochastic&& result) {
    return py::make_tuple(adopt(std::move(result.indptr)), adopt(std::move(result.indices)),
                          adopt(std::move(result.data)), adopt(std::move(result.degree)));
}

py::tuple py_row_stochastic(std::int64_t n_nodes, const carray<std::int64_t>& a, const carray<std::int64_t>& b,
                            const carray<double>& w) {
    require_shape(a, "a", {-1}, "(n_edges,)");
    require_shape(b, "b", {a.shape(0)}, "(n_edges,) matching a");
    require_shape(w, "w", {a.shape(0)}, "(n_edges,) matching a");
    RowStochastic result;
    {
        py::gil_scoped_release release;
        result = row_stochastic(n_nodes, a.data(), b.data(), w.data(), a.shape(0));
    }
    return stochastic_arrays(std::move(result));
}

py::tuple py_row_stochastic_patch(const carray<std::int64_t>& indptr, const carray<std::int32_t>& indices,
                                  const carray<float>& data, const carray<double>& degree,
                                  const carray<std::int64_t>& base_starts, const carray<std::int64_t>& new_starts,
                                  const carray<std::int64_t>& a, const carray<std::int64_t>& b,
                                  const carray<double>& w) {
    const CsrView base = csr_view(indptr, indices, data, degree.data());
    require_shape(degree, "degree", {base.n}, "(n_nodes,)");
    require_shape(base_starts, "base_starts", {-1}, "(blocks + 1,)");
    require_shape(new_starts, "new_starts", {base_starts.shape(0)}, "(blocks + 1,) matching base_starts");
    if (base_starts.shape(0) < 2) throw py::value_error("base_starts must hold at least one block");
    require_shape(a, "a", {-1}, "(n_edges,)");
    require_shape(b, "b", {a.shape(0)}, "(n_edges,) matching a");
    require_shape(w, "w", {a.shape(0)}, "(n_edges,) matching a");
    Patch result;
    {
        py::gil_scoped_release release;
        result = row_stochastic_patch(base, base_starts.data(), new_starts.data(), base_starts.shape(0) - 1, a.data(),
                                      b.data(), w.data(), a.shape(0));
    }
    return py::make_tuple(adopt(std::move(result.nodes)), adopt(std::move(result.indptr)),
                          adopt(std::move(result.indices)), adopt(std::move(result.data)),
                          adopt(std::move(result.degree)));
}

py::tuple py_row_stochastic_flatten(const carray<std::int64_t>& indptr, const carray<std::int32_t>& indices,
                                    const carray<float>& data, const carray<double>& degree, const py::tuple& patch) {
    const CsrView base = csr_view(indptr, indices, data, degree.data());
    require_shape(degree, "degree", {base.n}, "(n_nodes,)");
    const PatchArrays arrays(patch);
    const PatchView view = arrays.view();
    RowStochastic result;
    {
        py::gil_scoped_release release;
        result = row_stochastic_flatten(base, view);
    }
    return stochastic_arrays(std::move(result));
}

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "edge-agent native core: tracking, box geometry and embedding similarity (private; use edge_agent.native)";
    m.attr("__version__") = EDGE_AGENT_VERSION;
    m.attr("kernel_isa") = kernel_isa();

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const std::invalid_argument& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });

    py::class_<ByteTracker>(m, "ByteTracker")
        .def(py::init([](double high, double low, double new_track, double min_iou, int lost_track_buffer,
                         double frame_rate, bool class_aware, double appearance_gate, double appearance_threshold,
                         bool observation_recovery) {
                 return new ByteTracker(TrackerParams{high, low, new_track, min_iou, lost_track_buffer, frame_rate,
                                                      class_aware, appearance_gate, appearance_threshold,
                                                      observation_recovery});
             }),
             py::arg("high_conf_det_threshold"), py::arg("low_conf_det_threshold"), py::arg("new_track_threshold"),
             py::arg("minimum_iou_threshold"), py::arg("lost_track_buffer"), py::arg("frame_rate"),
             py::arg("class_aware"), py::arg("appearance_gate"), py::arg("appearance_threshold"),
             py::arg("observation_recovery"))
        .def("update", &tracker_update, py::arg("xyxy"), py::arg("scores"), py::arg("class_ids"),
             py::arg("return_predicted"), py::arg("warp") = py::none(), py::arg("features") = py::none())
        .def("reset", &ByteTracker::reset, py::call_guard<py::gil_scoped_release>())
        .def_property_readonly("frame_id", &ByteTracker::frame_id)
        .def_property_readonly("num_tracked", &ByteTracker::num_tracked)
        .def_property_readonly("num_lost", &ByteTracker::num_lost);

    m.def("iou_matrix", &py_iou_matrix, py::arg("a"), py::arg("b"));
    m.def("separation", &py_separation, py::arg("frames_a"), py::arg("boxes_a"), py::arg("frames_b"),
          py::arg("boxes_b"), py::arg("iou_threshold"), py::arg("min_shared_frames"), py::arg("min_fraction"));
    m.def("association_test", &py_association_test, py::arg("queries"), py::arg("refs"), py::arg("ref_owner"),
          py::arg("tau_low"), py::arg("tau_high"));
    m.def("cosine_topk", &py_cosine_topk, py::arg("queries"), py::arg("base"), py::arg("k"), py::arg("threads"));
    m.def("linear_assignment", &py_linear_assignment, py::arg("similarity"), py::arg("min_similarity"));
    m.def("ppr_push", &py_ppr_push, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("seed_nodes"),
          py::arg("seed_weights"), py::arg("restart"), py::arg("epsilon"), py::arg("max_pushes"),
          py::arg("patch") = py::none());
    m.def("row_stochastic", &py_row_stochastic, py::arg("n_nodes"), py::arg("a"), py::arg("b"), py::arg("w"));
    m.def("row_stochastic_patch", &py_row_stochastic_patch, py::arg("indptr"), py::arg("indices"), py::arg("data"),
          py::arg("degree"), py::arg("base_starts"), py::arg("new_starts"), py::arg("a"), py::arg("b"), py::arg("w"));
    m.def("row_stochastic_flatten", &py_row_stochastic_flatten, py::arg("indptr"), py::arg("indices"),
          py::arg("data"), py::arg("degree"), py::arg("patch"));
    m.def("csr_matvec", &py_csr_matvec, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("x"),
          py::arg("threads"));
}
