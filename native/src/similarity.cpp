#include "similarity.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <thread>
#include <utility>

#include "kernels.hpp"

namespace edge_agent {

namespace {

// Rows per block: a block of 512-d float32 rows is 256 KiB, resident in L2 while every query visits it.
constexpr std::int64_t kBlockRows = 128;

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            exponent = 127 - 15 + 1;
            while ((mantissa & 0x400u) == 0) {
                mantissa <<= 1;
                --exponent;
            }
            mantissa &= 0x3ffu;
            bits = sign | (exponent << 23) | (mantissa << 13);
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
}

// Every half-precision value's float, looked up while scanning (256 KiB, resident in L2): several times
// faster than converting each element with branches.
const float* half_table() {
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (std::uint32_t h = 0; h < 65536; ++h) t[h] = half_to_float(static_cast<std::uint16_t>(h));
        return t;
    }();
    return table.data();
}

// Half-precision values to float: F16C's conversion where the CPU has it (a 25k x 384 scan for one query took
// 3.3 ms here against 7-8 ms with the table), else the table.
void convert_halves(const std::uint16_t* src, float* dst, std::int64_t n) {
#ifdef EDGE_AGENT_HAVE_F16C_KERNELS
    static const bool use_f16c = __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c");
    if (use_f16c) {
        kernels_f16c::halves_to_floats(src, dst, n);
        return;
    }
#endif
    const float* table = half_table();
    for (std::int64_t t = 0; t < n; ++t) dst[t] = table[src[t]];
}

std::vector<double> query_norms(const char* argument, const float* queries, std::int64_t nq, std::int64_t d) {
    std::vector<float> norm2(static_cast<std::size_t>(nq));
    dot_kernels().squared_norms(queries, nq, d, norm2.data());
    std::vector<double> norms(static_cast<std::size_t>(nq));
    for (std::int64_t i = 0; i < nq; ++i) {
        if (!std::isfinite(norm2[i])) throw BadRow{argument, i, "contains NaN or inf, or overflows float32"};
        if (norm2[i] <= 0.0f) throw BadRow{argument, i, "has zero norm"};
        norms[i] = std::sqrt(static_cast<double>(norm2[i]));
    }
    return norms;
}

void check_row_norms(const char* argument, const float* norm2, std::int64_t first_row, std::int64_t count) {
    for (std::int64_t j = 0; j < count; ++j) {
        if (!std::isfinite(norm2[j])) throw BadRow{argument, first_row + j, "contains NaN or inf, or overflows float32"};
        if (norm2[j] <= 0.0f) throw BadRow{argument, first_row + j, "has zero norm"};
    }
}

}  // namespace

const char* kernel_isa() { return dot_kernels().isa; }

AssociationOutput association_test(const float* queries, std::int64_t nq, const float* refs, std::int64_t nr,
                                   const std::int64_t* ref_owner, std::int64_t d, float tau_low, float tau_high) {
    const DotKernels& kern = dot_kernels();
    const std::vector<double> qn = query_norms("query", queries, nq, d);
    std::vector<float> rn2(static_cast<std::size_t>(nr));
    std::vector<float> dots(static_cast<std::size_t>(nq * nr));
    if (nq == 1) {
        kern.dot_and_norms(queries, refs, nr, d, dots.data(), rn2.data());
    } else {
        kern.squared_norms(refs, nr, d, rn2.data());
        kern.dot_block(queries, nq, refs, nr, d, dots.data());
    }
    check_row_norms("refs", rn2.data(), 0, nr);

    AssociationOutput out;
    out.owner.assign(ref_owner, ref_owner + nr);
    std::sort(out.owner.begin(), out.owner.end());
    out.owner.erase(std::unique(out.owner.begin(), out.owner.end()), out.owner.end());
    const std::int64_t nu = static_cast<std::int64_t>(out.owner.size());
    std::vector<std::int64_t> slot(static_cast<std::size_t>(nr)), count(static_cast<std::size_t>(nu), 0);
    for (std::int64_t r = 0; r < nr; ++r) {
        slot[r] = std::lower_bound(out.owner.begin(), out.owner.end(), ref_owner[r]) - out.owner.begin();
        ++count[slot[r]];
    }

    const std::size_t cells = static_cast<std::size_t>(nq * nu);
    out.min_sim.assign(cells, 0.0f);
    out.max_sim.assign(cells, 0.0f);
    out.mean_sim.assign(cells, 0.0f);
    out.qualifies.assign(cells, 0);

    std::vector<float> lo(static_cast<std::size_t>(nu)), hi(static_cast<std::size_t>(nu));
    std::vector<double> sum(static_cast<std::size_t>(nu));
    for (std::int64_t i = 0; i < nq; ++i) {
        std::fill(lo.begin(), lo.end(), INFINITY);
        std::fill(hi.begin(), hi.end(), -INFINITY);
        std::fill(sum.begin(), sum.end(), 0.0);
        for (std::int64_t r = 0; r < nr; ++r) {
            const float sim = static_cast<float>(dots[i * nr + r] / (qn[i] * std::sqrt(static_cast<double>(rn2[r]))));
            const std::int64_t u = slot[r];
            lo[u] = std::min(lo[u], sim);
            hi[u] = std::max(hi[u], sim);
            sum[u] += sim;
        }
        for (std::int64_t u = 0; u < nu; ++u) {
            const std::size_t c = static_cast<std::size_t>(i * nu + u);
            out.min_sim[c] = lo[u];
            out.max_sim[c] = hi[u];
            out.mean_sim[c] = static_cast<float>(sum[u] / static_cast<double>(count[u]));
            out.qualifies[c] = lo[u] >= tau_low && hi[u] >= tau_high;
        }
    }
    return out;
}

namespace {

using Entry = std::pair<float, std::int64_t>;

// "Better" = higher score, then lower index. With it as the heap order, a heap's front is its worst entry.
bool better(const Entry& a, const Entry& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); }

// Scans base rows [begin, end) and keeps per query the best k (heaps, one per query).
void scan_rows(const float* queries, std::int64_t nq, const std::vector<double>& qn, const float* base_f32,
               const std::uint16_t* base_f16, std::int64_t begin, std::int64_t end, std::int64_t d, std::int64_t k,
               std::vector<std::vector<Entry>>& heaps) {
    const DotKernels& kern = dot_kernels();
    std::vector<float> converted(base_f16 ? static_cast<std::size_t>(kBlockRows * d) : 0);
    std::vector<float> norm2(static_cast<std::size_t>(kBlockRows));
    std::vector<float> dots(static_cast<std::size_t>(nq * kBlockRows));
    heaps.assign(static_cast<std::size_t>(nq), {});
    for (auto& h : heaps) h.reserve(static_cast<std::size_t>(k));
    for (std::int64_t start = begin; start < end; start += kBlockRows) {
        const std::int64_t rows = std::min(kBlockRows, end - start);
        const float* block = base_f32 ? base_f32 + start * d : converted.data();
        if (base_f16) convert_halves(base_f16 + start * d, converted.data(), rows * d);
        if (nq == 1) {
            kern.dot_and_norms(queries, block, rows, d, dots.data(), norm2.data());
        } else {
            kern.squared_norms(block, rows, d, norm2.data());
            kern.dot_block(queries, nq, block, rows, d, dots.data());
        }
        check_row_norms("base", norm2.data(), start, rows);
        for (std::int64_t i = 0; i < nq; ++i) {
            auto& heap = heaps[i];
            for (std::int64_t j = 0; j < rows; ++j) {
                const Entry e{static_cast<float>(dots[i * rows + j] / (qn[i] * std::sqrt(static_cast<double>(norm2[j])))),
                              start + j};
                if (static_cast<std::int64_t>(heap.size()) < k) {
                    heap.push_back(e);
                    std::push_heap(heap.begin(), heap.end(), better);
                } else if (better(e, heap.front())) {
                    std::pop_heap(heap.begin(), heap.end(), better);
                    heap.back() = e;
                    std::push_heap(heap.begin(), heap.end(), better);
                }
            }
        }
    }
}

// Below this many multiply-adds a scan runs on the calling thread: starting threads would cost more.
constexpr double kMinWorkPerThread = 4.0e6;

}  // namespace

void cosine_topk(const float* queries, std::int64_t nq, const float* base_f32, const std::uint16_t* base_f16,
                 std::int64_t n, std::int64_t d, std::int64_t k, std::int64_t* indices, float* scores, int threads) {
    const std::vector<double> qn = query_norms("queries", queries, nq, d);
    k = std::min(k, n);
    if (k <= 0 || nq == 0) return;

    const double work = static_cast<double>(n) * static_cast<double>(d) * static_cast<double>(nq);
    int parts = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (threads <= 0) parts = static_cast<int>(std::min<double>(parts, std::max(1.0, work / kMinWorkPerThread)));
    parts = static_cast<int>(std::min<std::int64_t>(parts, (n + kBlockRows - 1) / kBlockRows));
    parts = std::max(parts, 1);

    // Contiguous row ranges in whole blocks; each part keeps its own heaps, merged afterwards.
    const std::int64_t blocks = (n + kBlockRows - 1) / kBlockRows;
    std::vector<std::vector<std::vector<Entry>>> part_heaps(static_cast<std::size_t>(parts));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(parts));
    auto run_part = [&](int p) {
        const std::int64_t begin = blocks * p / parts * kBlockRows;
        const std::int64_t end = std::min(n, blocks * (p + 1) / parts * kBlockRows);
        try {
            scan_rows(queries, nq, qn, base_f32, base_f16, begin, end, d, k, part_heaps[p]);
        } catch (...) {
            errors[p] = std::current_exception();
        }
    };
    if (parts == 1) {
        run_part(0);
    } else {
        std::vector<std::thread> workers;
        for (int p = 1; p < parts; ++p) workers.emplace_back(run_part, p);
        run_part(0);
        for (auto& w : workers) w.join();
    }
    for (auto& e : errors)  // the first bad row in row order, whichever thread met it
        if (e) std::rethrow_exception(e);

    std::vector<Entry> merged;
    for (std::int64_t i = 0; i < nq; ++i) {
        merged.clear();
        for (auto& heaps : part_heaps) merged.insert(merged.end(), heaps[i].begin(), heaps[i].end());
        std::partial_sort(merged.begin(), merged.begin() + k, merged.end(), better);
        for (std::int64_t t = 0; t < k; ++t) {
            indices[i * k + t] = merged[t].second;
            scores[i * k + t] = merged[t].first;
        }
    }
}

}  // namespace edge_agent
