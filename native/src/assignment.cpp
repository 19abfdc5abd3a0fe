#include "assignment.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace edge_agent {

std::vector<std::int32_t> solve_dense_assignment(const std::vector<double>& cost, int n, int m) {
    // Jonker-Volgenant style shortest augmenting paths (1-based, column 0 is the virtual start).
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0), minv(m + 1);
    std::vector<int> p(m + 1, 0), way(m + 1, 0);
    std::vector<char> used(m + 1);
    for (int i = 1; i <= n; ++i) {
        p[0] = i;
        int j0 = 0;
        std::fill(minv.begin(), minv.end(), inf);
        std::fill(used.begin(), used.end(), 0);
        do {
            used[j0] = 1;
            const int i0 = p[j0];
            double delta = inf;
            int j1 = 0;
            const double* row = cost.data() + static_cast<std::size_t>(i0 - 1) * m;
            for (int j = 1; j <= m; ++j) {
                if (used[j]) continue;
                const double cur = row[j - 1] - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (int j = 0; j <= m; ++j) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<std::int32_t> assign(n, -1);
    for (int j = 1; j <= m; ++j)
        if (p[j] != 0) assign[p[j] - 1] = j - 1;
    return assign;
}

namespace {

int find_root(std::vector<int>& parent, int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

}  // namespace

void match_edges(int n_rows, int n_cols, const std::vector<Edge>& edges, double threshold, MatchWorkspace& ws,
                 std::vector<Match>& matches) {
    matches.clear();
    auto& allowed = ws.allowed;
    allowed.clear();
    for (const Edge& e : edges)
        if (e.similarity > threshold) allowed.push_back(e);
    if (allowed.empty()) return;

    // Rows are nodes [0, n_rows), columns [n_rows, n_rows + n_cols). Components solve independently:
    // a pair outside the allowed set never improves the objective.
    auto& parent = ws.parent;
    parent.resize(static_cast<std::size_t>(n_rows) + n_cols);
    std::iota(parent.begin(), parent.end(), 0);
    for (const Edge& e : allowed) {
        const int a = find_root(parent, e.row), b = find_root(parent, n_rows + e.col);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
    auto& root_of = ws.root_of;
    root_of.resize(allowed.size());
    for (std::size_t t = 0; t < allowed.size(); ++t) root_of[t] = find_root(parent, allowed[t].row);
    auto& order = ws.order;
    order.resize(allowed.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        if (root_of[x] != root_of[y]) return root_of[x] < root_of[y];
        if (allowed[x].row != allowed[y].row) return allowed[x].row < allowed[y].row;
        return allowed[x].col < allowed[y].col;
    });
    auto& grouped = ws.grouped;
    grouped.resize(allowed.size());
    for (std::size_t t = 0; t < order.size(); ++t) grouped[t] = allowed[order[t]];

    auto& local_row = ws.local_row;
    auto& local_col = ws.local_col;
    local_row.assign(n_rows, -1);
    local_col.assign(n_cols, -1);
    auto& rows = ws.rows;
    auto& cols = ws.cols;
    for (std::size_t begin = 0; begin < grouped.size();) {
        const int root = root_of[order[begin]];
        std::size_t end = begin;
        rows.clear();
        cols.clear();
        while (end < grouped.size() && root_of[order[end]] == root) {
            const Edge& e = grouped[end++];
            if (local_row[e.row] < 0) {
                local_row[e.row] = 0;
                rows.push_back(e.row);
            }
            if (local_col[e.col] < 0) {
                local_col[e.col] = 0;
                cols.push_back(e.col);
            }
        }
        if (rows.size() == 1 || cols.size() == 1) {
            // A star: the best single edge is optimal (ties to the lowest index, edges are in row, col order).
            std::size_t best = begin;
            for (std::size_t t = begin + 1; t < end; ++t)
                if (grouped[t].similarity > grouped[best].similarity) best = t;
            matches.emplace_back(grouped[best].row, grouped[best].col);
        } else {
            std::sort(rows.begin(), rows.end());
            std::sort(cols.begin(), cols.end());
            for (std::size_t i = 0; i < rows.size(); ++i) local_row[rows[i]] = static_cast<int>(i);
            for (std::size_t j = 0; j < cols.size(); ++j) local_col[cols[j]] = static_cast<int>(j);
            const int nr = static_cast<int>(rows.size()), nc = static_cast<int>(cols.size());
            const bool transpose = nr > nc;
            const int n = transpose ? nc : nr, m = transpose ? nr : nc;
            ws.cost.assign(static_cast<std::size_t>(n) * m, 0.0);  // 0 = leave both unmatched
            ws.is_edge.assign(static_cast<std::size_t>(nr) * nc, 0);
            for (std::size_t t = begin; t < end; ++t) {
                const int r = local_row[grouped[t].row], c = local_col[grouped[t].col];
                const double gain = threshold - grouped[t].similarity;  // < 0
                ws.cost[transpose ? static_cast<std::size_t>(c) * m + r : static_cast<std::size_t>(r) * m + c] = gain;
                ws.is_edge[static_cast<std::size_t>(r) * nc + c] = 1;
            }
            const std::vector<std::int32_t> assign = solve_dense_assignment(ws.cost, n, m);
            for (int a = 0; a < n; ++a) {
                const int r = transpose ? assign[a] : a, c = transpose ? a : assign[a];
                if (ws.is_edge[static_cast<std::size_t>(r) * nc + c]) matches.emplace_back(rows[r], cols[c]);
            }
        }
        for (std::int32_t r : rows) local_row[r] = -1;
        for (std::int32_t c : cols) local_col[c] = -1;
        begin = end;
    }
    std::sort(matches.begin(), matches.end());
}

}  // namespace edge_agent
