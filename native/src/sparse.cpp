#include "sparse.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

namespace edge_agent {

void csr_matvec(const std::int64_t* indptr, const std::int32_t* indices, const double* data, const double* x, double* y,
                std::int64_t n_rows, int threads) {
    auto rows = [&](std::int64_t begin, std::int64_t end) {
        for (std::int64_t r = begin; r < end; ++r) {
            double sum = 0.0;
            for (std::int64_t k = indptr[r]; k < indptr[r + 1]; ++k) sum += data[k] * x[indices[k]];
            y[r] = sum;
        }
    };
    if (threads <= 1 || n_rows < 4096) {
        rows(0, n_rows);
        return;
    }
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back(rows, n_rows * t / threads, n_rows * (t + 1) / threads);
    rows(0, n_rows / threads);
    for (auto& w : workers) w.join();
}

}  // namespace edge_agent

namespace edge_agent {

namespace {

// Per-thread dense workspace reused across calls: only the entries a call touched are reset, so a query on a large
// graph costs what it touches, not the graph's size.
struct PushWorkspace {
    std::vector<double> residual, estimate;
    std::vector<char> queued, touched;
    std::vector<std::int32_t> touched_list;

    void fit(std::int64_t n) {
        if (static_cast<std::int64_t>(residual.size()) < n) {
            residual.resize(n, 0.0);
            estimate.resize(n, 0.0);
            queued.resize(n, 0);
            touched.resize(n, 0);
        }
    }
    void touch(std::int32_t v) {
        if (!touched[v]) {
            touched[v] = 1;
            touched_list.push_back(v);
        }
    }
    void reset() {
        for (std::int32_t v : touched_list) {
            residual[v] = estimate[v] = 0.0;
            queued[v] = touched[v] = 0;
        }
        touched_list.clear();
    }
};

}  // namespace

PushResult ppr_push(const std::int64_t* indptr, const std::int32_t* indices, const float* data, std::int64_t n_nodes,
                    const std::int32_t* seed_nodes, const double* seed_weights, std::int64_t n_seeds, double restart,
                    double epsilon, std::int64_t max_pushes) {
    if (!(restart > 0.0 && restart <= 1.0)) throw std::invalid_argument("restart must be in (0, 1]");
    if (!(epsilon > 0.0)) throw std::invalid_argument("epsilon must be > 0");
    const std::int64_t nnz = indptr[n_nodes];
    for (std::int64_t k = 0; k < n_seeds; ++k) {
        if (seed_nodes[k] < 0 || seed_nodes[k] >= n_nodes) throw std::invalid_argument("seed nodes must be in [0, n)");
        if (!(seed_weights[k] >= 0.0)) throw std::invalid_argument("seed weights must be >= 0");
    }
    thread_local PushWorkspace ws;
    ws.fit(n_nodes);
    ws.reset();
    std::vector<std::int32_t> queue;
    std::size_t head = 0;
    auto degree = [&](std::int32_t u) { return static_cast<double>(std::max<std::int64_t>(1, indptr[u + 1] - indptr[u])); };
    auto offer = [&](std::int32_t v) {
        if (!ws.queued[v] && ws.residual[v] > epsilon * degree(v)) {
            ws.queued[v] = 1;
            queue.push_back(v);
        }
    };
    for (std::int64_t k = 0; k < n_seeds; ++k) {
        ws.touch(seed_nodes[k]);
        ws.residual[seed_nodes[k]] += seed_weights[k];
    }
    for (std::int64_t k = 0; k < n_seeds; ++k) offer(seed_nodes[k]);
    PushResult out;
    while (head < queue.size() && out.pushes < max_pushes) {
        const std::int32_t u = queue[head++];
        ws.queued[u] = 0;
        const double r = ws.residual[u];
        ws.residual[u] = 0.0;
        ++out.pushes;
        const std::int64_t begin = indptr[u], end = indptr[u + 1];
        if (begin < 0 || end < begin || end > nnz) throw std::invalid_argument("indptr must be non-decreasing in [0, nnz]");
        if (begin == end) {  // no edges: the node keeps its mass
            ws.estimate[u] += r;
            continue;
        }
        ws.estimate[u] += restart * r;
        const double pass = (1.0 - restart) * r;
        for (std::int64_t k = begin; k < end; ++k) {
            const std::int32_t v = indices[k];
            if (v < 0 || v >= n_nodes) throw std::invalid_argument("indices must be in [0, n)");
            ws.touch(v);
            ws.residual[v] += pass * static_cast<double>(data[k]);
            offer(v);
        }
        if (head > 4096 && head * 2 > queue.size()) {  // drop the consumed front now and then
            queue.erase(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(head));
            head = 0;
        }
    }
    for (std::int32_t v : ws.touched_list) {
        out.residual += ws.residual[v];
        if (ws.estimate[v] > 0.0) {
            out.nodes.push_back(v);
            out.values.push_back(ws.estimate[v]);
        }
    }
    return out;
}

}  // namespace edge_agent

namespace edge_agent {

namespace {

struct Entry {
    std::int32_t column;
    double weight;
};

// Both directions of every edge of weight > 0, by row (a counting sort): row u's are entries[start[u], start[u + 1]).
struct ByRow {
    std::vector<std::int64_t> start;
    std::vector<Entry> entries;
};

ByRow by_row(std::int64_t n_nodes, const std::int64_t* a, const std::int64_t* b, const double* w,
             std::int64_t n_edges) {
    ByRow out;
    std::vector<std::int64_t>& start = out.start;
    start.assign(static_cast<std::size_t>(n_nodes) + 1, 0);
    for (std::int64_t k = 0; k < n_edges; ++k) {
        if (a[k] < 0 || a[k] >= n_nodes || b[k] < 0 || b[k] >= n_nodes)
            throw std::invalid_argument("edge ends must be in [0, n_nodes)");
        if (!std::isfinite(w[k])) throw std::invalid_argument("edge weights must be finite");
        if (w[k] > 0.0) {
            ++start[a[k] + 1];
            ++start[b[k] + 1];
        }
    }
    for (std::int64_t u = 0; u < n_nodes; ++u) start[u + 1] += start[u];
    out.entries.resize(static_cast<std::size_t>(start[n_nodes]));
    std::vector<std::int64_t> fill(start.begin(), start.end() - 1);
    for (std::int64_t k = 0; k < n_edges; ++k) {
        if (!(w[k] > 0.0)) continue;
        out.entries[fill[a[k]]++] = {static_cast<std::int32_t>(b[k]), w[k]};
        out.entries[fill[b[k]]++] = {static_cast<std::int32_t>(a[k]), w[k]};
    }
    return out;
}

}  // namespace

RowStochastic row_stochastic(std::int64_t n_nodes, const std::int64_t* a, const std::int64_t* b, const double* w,
                             std::int64_t n_edges) {
    if (n_nodes < 0 || n_nodes > INT32_MAX) throw std::invalid_argument("n_nodes must be in [0, 2^31)");
    ByRow rows = by_row(n_nodes, a, b, w, n_edges);
    const std::vector<std::int64_t>& start = rows.start;
    std::vector<Entry>& entries = rows.entries;
    std::int64_t isolated = 0;
    for (std::int64_t u = 0; u < n_nodes; ++u) isolated += start[u + 1] == start[u];
    RowStochastic out;
    const std::size_t most = entries.size() + static_cast<std::size_t>(isolated);
    out.degree.assign(static_cast<std::size_t>(n_nodes), 0.0);
    out.indptr.resize(static_cast<std::size_t>(n_nodes) + 1);
    out.indices.resize(most);
    out.data.resize(most);
    std::int64_t at = 0;
    out.indptr[0] = 0;
    for (std::int64_t u = 0; u < n_nodes; ++u) {
        Entry* first = entries.data() + start[u];
        Entry* last = entries.data() + start[u + 1];
        if (first == last) {  // no edges: the node keeps its mass
            out.indices[at] = static_cast<std::int32_t>(u);
            out.data[at++] = 1.0f;
        } else {
            if (last - first > 1)
                std::sort(first, last, [](const Entry& x, const Entry& y) { return x.column < y.column; });
            double degree = 0.0;
            for (Entry* it = first; it != last; ++it) degree += it->weight;
            out.degree[static_cast<std::size_t>(u)] = degree;
            for (Entry* it = first; it != last; ++it) {
                double share = it->weight;
                while (it + 1 != last && it[1].column == it->column) share += (++it)->weight;  // repeated: summed
                out.indices[at] = it->column;
                out.data[at++] = static_cast<float>(share / degree);
            }
        }
        out.indptr[u + 1] = at;
    }
    out.indices.resize(static_cast<std::size_t>(at));
    out.data.resize(static_cast<std::size_t>(at));
    return out;
}

RowStochastic row_stochastic_extend(const std::int64_t* indptr, const std::int32_t* indices, const float* data,
                                    const double* degree, const std::int64_t* old_starts,
                                    const std::int64_t* new_starts, std::int64_t blocks, const std::int64_t* a,
                                    const std::int64_t* b, const double* w, std::int64_t n_edges) {
    if (blocks < 1) throw std::invalid_argument("blocks must be >= 1");
    if (old_starts[0] != 0 || new_starts[0] != 0) throw std::invalid_argument("the first block must start at 0");
    for (std::int64_t k = 0; k < blocks; ++k) {
        if (old_starts[k + 1] < old_starts[k] || new_starts[k + 1] - new_starts[k] < old_starts[k + 1] - old_starts[k])
            throw std::invalid_argument("each block must keep its earlier rows (new size >= old size)");
    }
    const std::int64_t n_old = old_starts[blocks], n_new = new_starts[blocks];
    if (n_new > INT32_MAX) throw std::invalid_argument("too many nodes (>= 2^31)");
    const std::int64_t nnz = indptr[n_old];
    ByRow rows = by_row(n_new, a, b, w, n_edges);  // the added edges; a touched row's are sorted when merged
    const std::vector<std::int64_t>& start = rows.start;
    std::vector<Entry>& added = rows.entries;
    // An earlier column's new number: its block's shift (blocks are few: a scan of their starts).
    std::vector<std::int64_t> shift(static_cast<std::size_t>(blocks));
    for (std::int64_t k = 0; k < blocks; ++k) shift[k] = new_starts[k] - old_starts[k];
    auto renumber = [&](std::int32_t column) -> std::int32_t {
        std::int64_t k = 0;
        while (k + 1 < blocks && column >= old_starts[k + 1]) ++k;
        return static_cast<std::int32_t>(column + shift[k]);
    };
    RowStochastic out;
    out.indptr.resize(static_cast<std::size_t>(n_new) + 1);
    const std::size_t bound = static_cast<std::size_t>(nnz + start[n_new] + (n_new - n_old));
    out.indices.resize(bound);  // at most: every earlier entry, both ends of every added edge, a self-loop per node
    out.data.resize(bound);
    std::int32_t* out_indices = out.indices.data();
    float* out_data = out.data.data();
    std::int64_t at = 0;
    out.degree.assign(static_cast<std::size_t>(n_new), 0.0);
    out.indptr[0] = 0;
    std::vector<Entry> row;
    std::int64_t block = 0;
    for (std::int64_t u = 0; u < n_new; ++u) {
        while (u >= new_starts[block + 1]) ++block;
        const std::int64_t offset = u - new_starts[block];
        const std::int64_t v = offset < old_starts[block + 1] - old_starts[block] ? old_starts[block] + offset : -1;
        Entry* first = added.data() + start[u];
        Entry* last = added.data() + start[u + 1];
        const double old_degree = v >= 0 ? degree[v] : 0.0;
        if (v >= 0 && (indptr[v] < 0 || indptr[v + 1] < indptr[v] || indptr[v + 1] > nnz))
            throw std::invalid_argument("indptr must be non-decreasing in [0, nnz]");
        if (first == last && v >= 0) {  // untouched: copied, renumbered
            const std::int64_t begin = indptr[v], count = indptr[v + 1] - begin;
            std::copy(data + begin, data + begin + count, out_data + at);
            for (std::int64_t k = 0; k < count; ++k) out_indices[at + k] = renumber(indices[begin + k]);
            at += count;
            out.degree[static_cast<std::size_t>(u)] = old_degree;
        } else if (first == last) {  // added without edges: keeps its mass
            out_indices[at] = static_cast<std::int32_t>(u);
            out_data[at++] = 1.0f;
        } else {
            if (last - first > 1)
                std::sort(first, last, [](const Entry& x, const Entry& y) { return x.column < y.column; });
            row.clear();
            if (old_degree > 0.0) {  // (a row without edges had only its self-loop)
                for (std::int64_t k = indptr[v]; k < indptr[v + 1]; ++k)
                    row.push_back({renumber(indices[k]), static_cast<double>(data[k]) * old_degree});
            }
            double sum = old_degree;
            const std::size_t earlier = row.size();
            for (Entry* it = first; it != last; ++it) {
                row.push_back(*it);
                sum += it->weight;
            }
            std::inplace_merge(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(earlier), row.end(),
                               [](const Entry& x, const Entry& y) { return x.column < y.column; });
            for (std::size_t i = 0; i < row.size(); ++i) {
                double share = row[i].weight;
                while (i + 1 < row.size() && row[i + 1].column == row[i].column) share += row[++i].weight;
                out_indices[at] = row[i].column;
                out_data[at++] = static_cast<float>(share / sum);
            }
            out.degree[static_cast<std::size_t>(u)] = sum;
        }
        out.indptr[u + 1] = at;
    }
    out.indices.resize(static_cast<std::size_t>(at));
    out.data.resize(static_cast<std::size_t>(at));
    return out;
}

}  // namespace edge_agent
