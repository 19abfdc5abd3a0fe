// Exact linear assignment for the tracker's association passes (ByteTrack) and for anyone who needs a
// maximum-weight partial matching: pairs (row, col) with similarity > threshold, chosen to maximise
// the sum of (similarity - threshold). Strictly greater, so that no pair is worth nothing and the
// optimum is the same whichever exact solver finds it. This equals LAPJV with ByteTrack's cost_limit extension; it is
// solved exactly per connected component of the allowed pairs by the Hungarian method.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace edge_agent {

struct Edge {
    std::int32_t row;
    std::int32_t col;
    double similarity;
};

// Minimises sum(cost[i][assign[i]]) over a dense n x m matrix (row-major) with n <= m; every row gets a
// distinct column. Shortest augmenting paths with potentials, O(n^2 m).
std::vector<std::int32_t> solve_dense_assignment(const std::vector<double>& cost, int n, int m);

using Match = std::pair<std::int32_t, std::int32_t>;

// Buffers reused across calls, so that a tracker matching every frame does not allocate.
struct MatchWorkspace {
    std::vector<Edge> allowed, grouped;
    std::vector<int> parent, root_of, local_row, local_col;
    std::vector<std::size_t> order;
    std::vector<std::int32_t> rows, cols;
    std::vector<double> cost;
    std::vector<char> is_edge;
};

// Maximum-weight matching over the edges with similarity > threshold; duplicate (row, col) edges are
// not allowed. Writes (row, col) pairs sorted by row into `matches`.
void match_edges(int n_rows, int n_cols, const std::vector<Edge>& edges, double threshold, MatchWorkspace& ws,
                 std::vector<Match>& matches);

}  // namespace edge_agent
