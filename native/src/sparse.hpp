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

// A row-stochastic matrix in CSR form: row u lists where u passes its mass (columns) and with which probabilities;
// `degree` is each row's sum of edge weights (0: a node without edges, whose row is a self-loop of 1).
struct CsrView {
    const std::int64_t* indptr;
    const std::int32_t* indices;
    const float* data;
    const double* degree;  // may be null where only the probabilities are read (local push)
    std::int64_t n;        // rows
};

// The rows that differ from a base matrix's after nodes and edges were added: nodes are in `blocks` consecutive
// blocks (block k at base_starts[k] in the base, at starts[k] now, its base rows first, in order, then the added
// ones), so a base row's columns are renumbered by their block's shift; `nodes` (strictly increasing, in the new
// numbering) are the rows given here (every added node and every earlier one an added edge touches), row i being
// indices/data[indptr[i] .. indptr[i + 1]) in the new numbering, with its weight sum degree[i]. The base's arrays
// stay as they are (memory-mapped from disk): a graph grown by a clip costs the clip, not a copy of the year.
struct PatchView {
    const std::int64_t* base_starts;
    const std::int64_t* starts;
    std::int64_t blocks;
    const std::int32_t* nodes;
    std::int64_t n_rows;
    const std::int64_t* indptr;
    const std::int32_t* indices;
    const float* data;
    const double* degree;
};

// Throws std::invalid_argument unless `patch` fits `base` (its blocks, its rows in order and in range, every added
// node among them, its columns in range): what local push and flattening then rely on.
void check_patch(const CsrView& base, const PatchView& patch);

// Personalized PageRank by local forward push (Andersen, Chung and Lang 2006): p = restart * s + (1 - restart) P^T p
// approximated by moving mass only where it is, so the cost depends on the seeds' neighbourhood, not on the graph.
// P is `base` with `patch`'s rows (null: the base alone; a row with no entries keeps its mass). A node is pushed
// while its residual exceeds `epsilon` times its number of entries (the accuracy knob: each estimate is within
// epsilon * degree of the exact value per unit of seed mass), at most `max_pushes` times. Returns the nodes with an
// estimate and their estimates; `residual` is the mass not yet placed (an upper bound of the total error).
struct PushResult {
    std::vector<std::int32_t> nodes;
    std::vector<double> values;
    std::int64_t pushes = 0;
    double residual = 0.0;
};

PushResult ppr_push(const CsrView& base, const PatchView* patch, const std::int32_t* seed_nodes,
                    const double* seed_weights, std::int64_t n_seeds, double restart, double epsilon,
                    std::int64_t max_pushes);

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

// The rows a graph's matrix (`base`, with its weight sums) gains or changes when nodes and edges are added: blocks as
// in PatchView (base_starts before, new_starts after) and the added edges (a, b, w) in the new numbering. An earlier
// row an added edge touches is its entries times its weight sum merged with the added ones; an added node's row is
// made of its edges. Sorts only the added edges: O(added edges + the touched rows' entries), nothing the size of the
// graph.
struct Patch {
    std::vector<std::int32_t> nodes;
    std::vector<std::int64_t> indptr;
    std::vector<std::int32_t> indices;
    std::vector<float> data;
    std::vector<double> degree;
};

Patch row_stochastic_patch(const CsrView& base, const std::int64_t* base_starts, const std::int64_t* new_starts,
                           std::int64_t blocks, const std::int64_t* a, const std::int64_t* b, const double* w,
                           std::int64_t n_edges);

// `base` with `patch`'s rows as one matrix in the new numbering (with each row's weight sum): one pass copying every
// base row the patch does not replace, its columns renumbered.
RowStochastic row_stochastic_flatten(const CsrView& base, const PatchView& patch);

}  // namespace edge_agent
