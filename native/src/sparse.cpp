#include "sparse.hpp"

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
