// Sparse matrix-vector product for Personalized PageRank over the memory graph (GEB section 3.4).
#pragma once

#include <cstdint>

namespace edge_agent {

// y = A x for A in CSR form (n_rows rows; indptr[n_rows + 1], indices and data of nnz entries), rows split
// over `threads` threads (1 = the calling thread only).
void csr_matvec(const std::int64_t* indptr, const std::int32_t* indices, const double* data, const double* x, double* y,
                std::int64_t n_rows, int threads);

}  // namespace edge_agent
