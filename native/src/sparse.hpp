// Sparse matrix-vector product for Personalized PageRank over the memory graph (GEB section 3.4).
#pragma once

#include <cstdint>
#include <vector>

namespace edge_agent {

// y = A x for A in CSR form (n_rows rows; indptr[n_rows + 1], indices and data of nnz entries), rows split
// over `threads` threads (1 = the calling thread only).
void csr_matvec(const std::int64_t* indptr, const std::int32_t* indices, const double* data, const double* x, double* y,
                std::int64_t n_rows, int threads);

}  // namespace edge_agent

namespace edge_agent {

// Personalized PageRank by local forward push (Andersen, Chung and Lang 2006): p = restart * s + (1 - restart) P^T p
// approximated by moving mass only where it is, so the cost depends on the seeds' neighbourhood, not on the graph.
// `P` is row-stochastic in CSR form (row u: where u passes its mass and with which probabilities; a row with no
// entries keeps its mass). A node is pushed while its residual exceeds `epsilon` times its number of entries (the
// accuracy knob: each estimate is within epsilon * degree of the exact value per unit of seed mass), at most
// `max_pushes` times. Returns the nodes with an estimate and their estimates; `residual` is the mass not yet
// placed (an upper bound of the total error).
struct PushResult {
    std::vector<std::int32_t> nodes;
    std::vector<double> values;
    std::int64_t pushes = 0;
    double residual = 0.0;
};

PushResult ppr_push(const std::int64_t* indptr, const std::int32_t* indices, const float* data, std::int64_t n_nodes,
                    const std::int32_t* seed_nodes, const double* seed_weights, std::int64_t n_seeds, double restart,
                    double epsilon, std::int64_t max_pushes);

}  // namespace edge_agent

namespace edge_agent {

// Where each node of an undirected weighted graph passes its relevance (the local push's row-stochastic matrix):
// row u lists u's neighbours v in increasing order with w(u, v) / sum of u's weights (edges given once, as (a[k],
// b[k], w[k]); both directions are made, repeated edges summed, edges of weight <= 0 left out), and a node without
// edges keeps its mass (a self-loop of 1). A counting sort by row then a sort within each row: O(edges), where
// SciPy's COO -> CSR, product with the inverse degrees and transpose took seconds on a million-observation graph.
struct RowStochastic {
    std::vector<std::int64_t> indptr;
    std::vector<std::int32_t> indices;
    std::vector<float> data;
    std::vector<double> degree;  // each row's sum of weights (0: no edges)
};

RowStochastic row_stochastic(std::int64_t n_nodes, const std::int64_t* a, const std::int64_t* b, const double* w,
                             std::int64_t n_edges);

// The same matrix after nodes and edges were added, made from the earlier one instead of from every edge: nodes in
// `blocks` consecutive blocks (old block k: rows old_starts[k] .. old_starts[k + 1]; new block k: new_starts[k] ..
// new_starts[k + 1], its old rows first, in order, then the added ones), the earlier rows' weight sums `degree`, and
// the added edges (a, b, w) in the new numbering. An earlier row no added edge touches is copied with its columns
// renumbered; a touched one is its entries times its weight sum merged with the added ones. One pass over the earlier
// arrays, no sort of them: O(entries + added edges).
RowStochastic row_stochastic_extend(const std::int64_t* indptr, const std::int32_t* indices, const float* data,
                                    const double* degree, const std::int64_t* old_starts,
                                    const std::int64_t* new_starts, std::int64_t blocks, const std::int64_t* a,
                                    const std::int64_t* b, const double* w, std::int64_t n_edges);

}  // namespace edge_agent
