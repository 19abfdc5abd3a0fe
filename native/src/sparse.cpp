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

// The base node of node u of a patch's numbering (-1: an added node), and a base column's number in it: each block's
// nodes shift by what the blocks before it gained (blocks are few: a scan of their starts).
std::int64_t base_node(const PatchView& patch, std::int64_t u) {
    std::int64_t k = 0;
    while (k + 1 < patch.blocks && u >= patch.starts[k + 1]) ++k;
    const std::int64_t offset = u - patch.starts[k];
    return offset < patch.base_starts[k + 1] - patch.base_starts[k] ? patch.base_starts[k] + offset : -1;
}

std::int32_t renumber(const PatchView& patch, std::int32_t base_column) {
    std::int64_t k = 0;
    while (k + 1 < patch.blocks && base_column >= patch.base_starts[k + 1]) ++k;
    return static_cast<std::int32_t>(base_column + patch.starts[k] - patch.base_starts[k]);
}

// Throws unless the blocks of a patch's numbering fit `base`: its blocks cover the base's rows and each keeps its
// rows, in at most 2^31 nodes.
void check_blocks(const CsrView& base, const std::int64_t* base_starts, const std::int64_t* starts,
                  std::int64_t blocks) {
    if (blocks < 1) throw std::invalid_argument("blocks must be >= 1");
    if (base_starts[0] != 0 || starts[0] != 0) throw std::invalid_argument("the first block must start at 0");
    if (base_starts[blocks] != base.n) throw std::invalid_argument("the base's blocks must cover its rows");
    for (std::int64_t k = 0; k < blocks; ++k) {
        if (base_starts[k + 1] < base_starts[k] || starts[k + 1] - starts[k] < base_starts[k + 1] - base_starts[k])
            throw std::invalid_argument("each block must keep its earlier rows (new size >= old size)");
    }
    if (starts[blocks] > INT32_MAX) throw std::invalid_argument("too many nodes (>= 2^31)");
}

// A base matrix with a patch's rows (or the base alone): row u's entries in the current numbering.
class Layered {
public:
    Layered(const CsrView& base, const PatchView* patch) : base_(base), patch_(patch) {
        n_ = patch != nullptr ? patch->starts[patch->blocks] : base.n;
        if (patch != nullptr && patch->n_rows > 0) {
            patched_.assign(static_cast<std::size_t>(n_ + 63) / 64, 0);  // a bit per node: most rows are the base's
            for (std::int64_t i = 0; i < patch->n_rows; ++i) {
                const std::int32_t u = patch->nodes[i];
                if (u >= 0 && u < n_) patched_[static_cast<std::size_t>(u) / 64] |= std::uint64_t{1} << (u % 64);
            }
        }
    }

    std::int64_t n() const { return n_; }

    // Row u: its entries' columns (base numbering where `base` is true, to be renumbered), probabilities, count.
    struct Row {
        const std::int32_t* columns;
        const float* data;
        std::int64_t count;
        bool base;
        std::int64_t base_node;  // -1: a patch row
        std::int64_t patch_row;  // -1: a base row
    };

    Row row(std::int64_t u) const {
        if (patch_ == nullptr) return base_row(u);
        if (!patched_.empty() && patched_[static_cast<std::size_t>(u) / 64] >> (u % 64) & 1) {
            const std::int64_t i = std::lower_bound(patch_->nodes, patch_->nodes + patch_->n_rows, u) - patch_->nodes;
            const std::int64_t begin = patch_->indptr[i];
            return {patch_->indices + begin, patch_->data + begin, patch_->indptr[i + 1] - begin, false, -1, i};
        }
        const std::int64_t v = edge_agent::base_node(*patch_, u);
        if (v < 0) throw std::invalid_argument("an added node has no row in the patch");
        return base_row(v);
    }

    // Row v of the base (its columns in the base's numbering).
    Row base_row(std::int64_t v) const {
        const std::int64_t begin = base_.indptr[v], end = base_.indptr[v + 1];
        if (begin < 0 || end < begin || end > base_.indptr[base_.n])
            throw std::invalid_argument("indptr must be non-decreasing in [0, nnz]");
        return {base_.indices + begin, base_.data + begin, end - begin, true, v, -1};
    }

    std::int32_t column(const Row& r, std::int64_t k) const {
        const std::int32_t c = r.columns[k];
        if (!r.base) return c;
        if (c < 0 || c >= base_.n) throw std::invalid_argument("indices must be in [0, n)");
        return patch_ == nullptr ? c : renumber(*patch_, c);
    }

    double degree(const Row& r) const {
        return r.base ? (base_.degree != nullptr ? base_.degree[r.base_node] : 0.0) : patch_->degree[r.patch_row];
    }

private:
    const CsrView& base_;
    const PatchView* patch_;
    std::int64_t n_;
    std::vector<std::uint64_t> patched_;
};

}  // namespace

void check_patch(const CsrView& base, const PatchView& patch) {
    check_blocks(base, patch.base_starts, patch.starts, patch.blocks);
    std::int64_t added = 0;
    for (std::int64_t k = 0; k < patch.blocks; ++k)
        added += patch.starts[k + 1] - patch.starts[k] - (patch.base_starts[k + 1] - patch.base_starts[k]);
    const std::int64_t n = patch.starts[patch.blocks];
    if (patch.indptr[0] != 0) throw std::invalid_argument("the patch's indptr must start at 0");
    std::int64_t added_rows = 0;
    for (std::int64_t i = 0; i < patch.n_rows; ++i) {
        const std::int32_t u = patch.nodes[i];
        if (u < 0 || u >= n || (i > 0 && u <= patch.nodes[i - 1]))
            throw std::invalid_argument("the patch's nodes must be strictly increasing in [0, n)");
        added_rows += base_node(patch, u) < 0;
        if (patch.indptr[i + 1] < patch.indptr[i]) throw std::invalid_argument("the patch's indptr must not decrease");
        for (std::int64_t k = patch.indptr[i]; k < patch.indptr[i + 1]; ++k)
            if (patch.indices[k] < 0 || patch.indices[k] >= n)
                throw std::invalid_argument("the patch's indices must be in [0, n)");
    }
    if (added_rows != added) throw std::invalid_argument("every added node must have a row in the patch");
}

PushResult ppr_push(const CsrView& base, const PatchView* patch, const std::int32_t* seed_nodes,
                    const double* seed_weights, std::int64_t n_seeds, double restart, double epsilon,
                    std::int64_t max_pushes) {
    if (!(restart > 0.0 && restart <= 1.0)) throw std::invalid_argument("restart must be in (0, 1]");
    if (!(epsilon > 0.0)) throw std::invalid_argument("epsilon must be > 0");
    const Layered rows(base, patch);
    const std::int64_t n_nodes = rows.n();
    for (std::int64_t k = 0; k < n_seeds; ++k) {
        if (seed_nodes[k] < 0 || seed_nodes[k] >= n_nodes) throw std::invalid_argument("seed nodes must be in [0, n)");
        if (!(seed_weights[k] >= 0.0)) throw std::invalid_argument("seed weights must be >= 0");
    }
    thread_local PushWorkspace ws;
    ws.fit(n_nodes);
    ws.reset();
    std::vector<std::int32_t> queue;
    std::size_t head = 0;
    auto offer = [&](std::int32_t v) {
        if (!ws.queued[v] && ws.residual[v] > epsilon * static_cast<double>(std::max<std::int64_t>(1, rows.row(v).count))) {
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
        const Layered::Row row = rows.row(u);
        if (row.count == 0) {  // no edges: the node keeps its mass
            ws.estimate[u] += r;
            continue;
        }
        ws.estimate[u] += restart * r;
        const double pass = (1.0 - restart) * r;
        for (std::int64_t k = 0; k < row.count; ++k) {
            const std::int32_t v = rows.column(row, k);
            if (v < 0 || v >= n_nodes) throw std::invalid_argument("indices must be in [0, n)");
            ws.touch(v);
            ws.residual[v] += pass * static_cast<double>(row.data[k]);
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

Patch row_stochastic_patch(const CsrView& base, const std::int64_t* base_starts, const std::int64_t* new_starts,
                           std::int64_t blocks, const std::int64_t* a, const std::int64_t* b, const double* w,
                           std::int64_t n_edges) {
    const PatchView shape{base_starts, new_starts, blocks, nullptr, 0, nullptr, nullptr, nullptr, nullptr};
    check_blocks(base, base_starts, new_starts, blocks);
    const std::int64_t n_new = new_starts[blocks];
    const Layered rows(base, &shape);  // (no rows: the base's, renumbered)
    // Both directions of every added edge of weight > 0, by row then column.
    struct Added {
        std::int32_t row, column;
        double weight;
    };
    std::vector<Added> added;
    added.reserve(static_cast<std::size_t>(2 * n_edges));
    for (std::int64_t k = 0; k < n_edges; ++k) {
        if (a[k] < 0 || a[k] >= n_new || b[k] < 0 || b[k] >= n_new)
            throw std::invalid_argument("edge ends must be in [0, n_nodes)");
        if (!std::isfinite(w[k])) throw std::invalid_argument("edge weights must be finite");
        if (!(w[k] > 0.0)) continue;
        added.push_back({static_cast<std::int32_t>(a[k]), static_cast<std::int32_t>(b[k]), w[k]});
        added.push_back({static_cast<std::int32_t>(b[k]), static_cast<std::int32_t>(a[k]), w[k]});
    }
    std::sort(added.begin(), added.end(),
              [](const Added& x, const Added& y) { return x.row != y.row ? x.row < y.row : x.column < y.column; });
    // The rows to give: every added node (each block's end) and every row an added edge touches, in order.
    std::vector<std::int32_t> nodes;
    for (std::int64_t k = 0; k < blocks; ++k)
        for (std::int64_t u = new_starts[k] + base_starts[k + 1] - base_starts[k]; u < new_starts[k + 1]; ++u)
            nodes.push_back(static_cast<std::int32_t>(u));
    const std::size_t n_added_nodes = nodes.size();
    for (std::size_t i = 0; i < added.size(); ++i)
        if (i == 0 || added[i].row != added[i - 1].row) nodes.push_back(added[i].row);
    std::inplace_merge(nodes.begin(), nodes.begin() + static_cast<std::ptrdiff_t>(n_added_nodes), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    Patch out;
    out.nodes = nodes;
    out.indptr.assign(1, 0);
    out.degree.reserve(nodes.size());
    std::vector<Entry> row;
    std::size_t next = 0;  // the first added entry not yet taken
    for (const std::int32_t u : nodes) {
        const std::int64_t v = base_node(shape, u);
        row.clear();
        double sum = 0.0;
        if (v >= 0 && base.degree[v] > 0.0) {  // its earlier entries, as weights (a row without edges had a self-loop)
            const Layered::Row earlier_row = rows.base_row(v);
            sum = base.degree[v];
            for (std::int64_t k = 0; k < earlier_row.count; ++k)
                row.push_back({rows.column(earlier_row, k), static_cast<double>(earlier_row.data[k]) * sum});
        }
        const std::size_t earlier = row.size();
        for (; next < added.size() && added[next].row == u; ++next) {
            row.push_back({added[next].column, added[next].weight});
            sum += added[next].weight;
        }
        std::inplace_merge(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(earlier), row.end(),
                           [](const Entry& x, const Entry& y) { return x.column < y.column; });
        if (row.empty()) {  // an added node without edges keeps its mass
            out.indices.push_back(u);
            out.data.push_back(1.0f);
        }
        for (std::size_t i = 0; i < row.size(); ++i) {
            double share = row[i].weight;
            while (i + 1 < row.size() && row[i + 1].column == row[i].column) share += row[++i].weight;
            out.indices.push_back(row[i].column);
            out.data.push_back(static_cast<float>(share / sum));
        }
        out.degree.push_back(sum);
        out.indptr.push_back(static_cast<std::int64_t>(out.indices.size()));
    }
    return out;
}

RowStochastic row_stochastic_flatten(const CsrView& base, const PatchView& patch) {
    check_patch(base, patch);
    const Layered rows(base, &patch);
    const std::int64_t n = rows.n();
    RowStochastic out;
    const std::int64_t bound = base.indptr[base.n] + patch.indptr[patch.n_rows];
    out.indptr.resize(static_cast<std::size_t>(n) + 1);
    out.indices.resize(static_cast<std::size_t>(bound));  // at most: every base entry and every patch entry
    out.data.resize(static_cast<std::size_t>(bound));
    out.degree.resize(static_cast<std::size_t>(n));
    std::int32_t* indices = out.indices.data();
    float* data = out.data.data();
    std::int64_t at = 0, next = 0;  // next: the first patch row not yet copied
    out.indptr[0] = 0;
    for (std::int64_t u = 0; u < n; ++u) {
        if (next < patch.n_rows && patch.nodes[next] == u) {
            const std::int64_t begin = patch.indptr[next], count = patch.indptr[next + 1] - begin;
            std::copy(patch.indices + begin, patch.indices + begin + count, indices + at);
            std::copy(patch.data + begin, patch.data + begin + count, data + at);
            out.degree[static_cast<std::size_t>(u)] = patch.degree[next++];
            at += count;
        } else {
            const Layered::Row row = rows.base_row(base_node(patch, u));  // (check_patch: every added node is patched)
            std::copy(row.data, row.data + row.count, data + at);
            for (std::int64_t k = 0; k < row.count; ++k) indices[at + k] = rows.column(row, k);
            out.degree[static_cast<std::size_t>(u)] = rows.degree(row);
            at += row.count;
        }
        out.indptr[static_cast<std::size_t>(u) + 1] = at;
    }
    out.indices.resize(static_cast<std::size_t>(at));
    out.data.resize(static_cast<std::size_t>(at));
    return out;
}

}  // namespace edge_agent
