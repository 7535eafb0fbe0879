// bench/shape_sweep.cpp — the shape sweep: every operator family over row widths from 16 B to 256 KiB (and, at 64 MiB,
// rows of 4 and 32 MiB), at 64 MiB and at an in-cache size, on one and two threads, in float32, float16 and int32,
// each cell against its limit measured paired in the same rounds.
//
//   families   scan (cumulative sum over the rows, along the rows, along the rows decreasing and exclusive), reduce
//              (SUM and MAX over and along the rows), argmax (over, along), log-sum-exp (over, along; floats only),
//              rows (gather_nd and scatter_nd of whole rows at random places, scatter in place)
//   limit      a copy of the operator's own bytes between its own buffers (scans, rows: the faster of the suite's
//              hinted copy probe and memcpy); for the reductions (reduce, argmax, log-sum-exp) a read of the input
//              (the suite's read probe) where the output is small — less than 1/16 of the input — and otherwise a
//              read of the input and a write of the output's bytes (the read + write limit: the faster of reading all
//              then writing all, and reading and writing page by page, both streams hinted as the read and copy
//              probes are; ordinary stores, as the library's): a reduction over two rows of 32 MiB reads 64 MiB and
//              writes 32 MiB, and written bytes cost more than read ones, so a read alone is no limit for it. On as
//              many threads as the operator (two: each thread its half, on the same pool). The tables mark the
//              cells judged against the read + write limit with *.
//   pairing    each round times the operator (best of a few calls) and then the limit's probe (best of as many
//              calls) over the same buffers; a cell is the median over rounds of probe time / operator time, in %
//              of the limit's speed with the bytes counted as the suite counts them (harness.hpp: read + written)
//
// Output: one markdown table per family and size (rows: width; columns: layout and type; cells: one thread / two
// threads), then every cell as CSV (family, layout, type, size, width, threads, limit, operator ms, probe ms, %).
// Usage: tensorops_shape_sweep [rounds=7] [family filter, a substring of scan|reduce|argmax|log-sum-exp|rows]
//        [size filter: big|small]. Build: `cmake --build build/bench --target tensorops_shape_sweep`.
#include "harness.hpp"
#include "read_write_probe.hpp"

#include <tensorops/tensorops.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using tensorops::float16;
using tensorops::tensor_view;

enum class family { scan, reduce, argmax, log_sum_exp, rows };
enum class element { f32, f16, i32 };

struct family_info {
    family which;
    const char* name;
    std::vector<const char*> layouts;
    tb::limit limit;
    bool floats_only;
};

const std::vector<family_info>& families() {
    static const std::vector<family_info> all = {
        {family::scan, "scan", {"cumsum over rows", "cumsum along rows", "along rows decreasing exclusive"}, tb::limit::copy, false},
        {family::reduce, "reduce", {"SUM over rows", "SUM along rows", "MAX over rows", "MAX along rows"}, tb::limit::read, false},
        {family::argmax, "argmax", {"over rows", "along rows"}, tb::limit::read, false},
        {family::log_sum_exp, "log-sum-exp", {"over rows", "along rows"}, tb::limit::read, true},
        {family::rows, "rows", {"gather_nd rows", "scatter_nd rows"}, tb::limit::copy, false},
    };
    return all;
}

const char* element_name(element e) { return e == element::f32 ? "f32" : e == element::f16 ? "f16" : "i32"; }

/// The sweep's buffers, allocated and touched once: input, output, indices (rows family), and a reduction's output.
struct buffers {
    void* x = nullptr;
    void* y = nullptr;
    std::int64_t* indices = nullptr;
    std::size_t bytes = 0;
};

/// One operator call: family f, layout `layout`, element type T, over [rows, width] elements at b.x (output b.y).
template <class T, class E>
void run_operator(E& exec, family f, int layout, const buffers& b, std::size_t rows, std::size_t width) {
    const T* x = static_cast<const T*>(b.x);
    T* y = static_cast<T*>(b.y);
    const tensor_view<const T> in(x, {rows, width});
    const std::size_t axis = layout % 2 == 0 ? 0 : 1;
    const std::vector<std::size_t> reduced = axis == 0 ? std::vector<std::size_t>{1, width} : std::vector<std::size_t>{rows, 1};
    switch (f) {
        case family::scan: {
            tensorops::scan_options options{layout == 0 ? std::size_t{0} : std::size_t{1}};
            if (layout == 2) options = {1, tensorops::axis_direction::decreasing, true};
            tensorops::cumulative_sum<T>(exec, in, tensor_view<T>(y, {rows, width}), options);
            break;
        }
        case family::reduce:
            tensorops::reduce(exec, in, tensor_view<T>(y, reduced), layout < 2 ? tensorops::reduce_function::sum : tensorops::reduce_function::max,
                              {axis});
            break;
        case family::argmax:
            tensorops::argmax(exec, in, tensor_view<std::int64_t>(static_cast<std::int64_t*>(b.y), reduced), {axis});
            break;
        case family::log_sum_exp:
            if constexpr (!std::is_integral_v<T>) tensorops::reduce(exec, in, tensor_view<T>(y, reduced), tensorops::reduce_function::log_sum_exp, {axis});
            break;
        case family::rows: {
            const tensor_view<const std::int64_t> indices(b.indices, {rows, 1});
            if (layout == 0) tensorops::gather_nd<T>(exec, in, indices, tensor_view<T>(y, {rows, width}));
            else  // in place: the updates (the output buffer) land on the input's rows
                tensorops::scatter_nd<T>(exec, in, indices, tensor_view<const T>(y, {rows, width}), tensor_view<T>(static_cast<T*>(b.x), {rows, width}),
                                         tensorops::scatter_reduction::none);
            break;
        }
    }
    benchmark::DoNotOptimize(b.y);
    benchmark::ClobberMemory();
}

/// The limit a cell is judged against: the family's copy, or for the reductions a read of the input or, where the output
/// is not small, a read of the input and a write of the output (see the file's comment).
enum class cell_limit { read, read_write, copy };

const char* limit_name(cell_limit l) { return l == cell_limit::read ? "read" : l == cell_limit::copy ? "copy" : "read+write"; }

/// Bytes the operator moves by the suite's convention, the bytes its probe moves, the limit, and the output's bytes.
struct traffic {
    double operator_bytes, probe_bytes;
    cell_limit limit;
    std::size_t output_bytes;
};

/// The output's bytes of a reduction family's cell: one element (argmax: an int64) per column (layout over the rows)
/// or per row (along them).
std::size_t output_bytes_of(const family_info& f, int layout, std::size_t rows, std::size_t width, std::size_t element_bytes) {
    const std::size_t outputs = layout % 2 == 0 ? width : rows;
    return outputs * (f.which == family::argmax ? sizeof(std::int64_t) : element_bytes);
}

traffic traffic_of(const family_info& f, int layout, std::size_t bytes, std::size_t rows, std::size_t width, std::size_t element_bytes) {
    const double b = static_cast<double>(bytes);
    if (f.which == family::scan) return {2 * b, 2 * b, cell_limit::copy, bytes};
    if (f.which == family::rows) return {2 * b + 8.0 * static_cast<double>(rows), 2 * b, cell_limit::copy, bytes};  // rows read and written, and the indices
    const std::size_t out = output_bytes_of(f, layout, rows, width, element_bytes);
    if (16 * out < bytes) return {b, b, cell_limit::read, out};  // the output's bytes are not counted: the read limit's convention
    const double moved = b + static_cast<double>(out);
    return {moved, moved, cell_limit::read_write, out};
}

/// The probe over the operator's own buffers, on `threads` threads of `pool` (each its half). `variant`: for the copy
/// limit, memcpy (1) or the suite's hinted copy (0); for the read + write limit, page by page (1) or read then write (0).
void run_probe(tensorops::thread_pool& pool, int threads, cell_limit limit, const buffers& b, std::size_t bytes, std::size_t output_bytes,
               int variant) {
    const bool use_memcpy = variant == 1;
    const auto part = [&](std::size_t i, std::size_t parts) {
        const std::size_t begin = bytes * i / parts / 64 * 64, end = i + 1 == parts ? bytes : bytes * (i + 1) / parts / 64 * 64;
        const auto* from = static_cast<const unsigned char*>(b.x) + begin;
        auto* to = static_cast<unsigned char*>(b.y) + begin;
        if (limit == cell_limit::read_write) {
            const std::size_t out_begin = output_bytes * i / parts / 64 * 64;
            const std::size_t out_end = i + 1 == parts ? output_bytes : output_bytes * (i + 1) / parts / 64 * 64;
            tb::read_write_probe(from, end - begin, static_cast<unsigned char*>(b.y) + out_begin, out_end - out_begin, variant == 1);
        } else if (limit == cell_limit::read) {
            std::uint32_t sink = tb::read_probe_words(from, end - begin);
            benchmark::DoNotOptimize(sink);
        } else if (use_memcpy) {
            tb::copy_probe_memcpy(to, from, end - begin);
        } else {
            tb::copy_probe(to, from, end - begin);
        }
        benchmark::ClobberMemory();
    };
    if (threads == 1) part(0, 1);
    else pool.parallel_for(static_cast<std::size_t>(threads), [&](std::size_t i) { part(i, static_cast<std::size_t>(threads)); });
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// The best of `calls` timings of `work`: in CPU time of the calling thread when it runs alone (the suite's clock,
/// harness.hpp: time the host gives other tenants is left out), in wall time when a second thread takes part.
template <class Work>
double best_of(int calls, int threads, const Work& work) {
    double best = 1e300;
    for (int i = 0; i < calls; ++i) {
        if (threads == 1) {
            const double t0 = tb::thread_cpu_seconds();
            work();
            best = std::min(best, tb::thread_cpu_seconds() - t0);
        } else {
            const auto t0 = std::chrono::steady_clock::now();
            work();
            best = std::min(best, seconds_since(t0));
        }
    }
    return best;
}

struct cell {
    std::string family, layout, type;
    std::size_t bytes = 0, width = 0;
    int threads = 1;
    cell_limit limit = cell_limit::read;
    double operator_ms = 0, probe_ms = 0, percent = 0;
};

/// Fills the input with values of type e (floats in [-1, 1), int32 small) and the indices with random rows.
void fill(const buffers& b, element e, std::size_t bytes, std::size_t rows) {
    if (e == element::f32) tb::fill_uniform(std::span<float>(static_cast<float*>(b.x), bytes / 4), 1);
    if (e == element::i32) tb::fill_uniform(std::span<std::int32_t>(static_cast<std::int32_t*>(b.x), bytes / 4), 2);
    if (e == element::f16) tb::fill_uniform(std::span<float16>(static_cast<float16*>(b.x), bytes / 2), 3);
    tb::splitmix64 rng(4);
    for (std::size_t i = 0; i < rows; ++i) b.indices[i] = static_cast<std::int64_t>(rng() % rows);
}

/// Measures one cell: `rounds` rounds of the operator then its probe; the median ratio.
template <class T>
cell measure(tensorops::thread_pool& pool, const family_info& f, int layout, element e, const buffers& b, std::size_t bytes,
             std::size_t width_bytes, int threads, int rounds) {
    const std::size_t width = width_bytes / sizeof(T), rows = bytes / width_bytes;
    const auto op = [&] {
        if (threads == 1) run_operator<T>(tensorops::sequential, f.which, layout, b, rows, width);
        else run_operator<T>(pool, f.which, layout, b, rows, width);
    };
    const traffic t = traffic_of(f, layout, bytes, rows, width, sizeof(T));
    op();  // warm: pages, caches, the pool
    const double once = best_of(1, threads, op);
    const int calls = static_cast<int>(std::clamp(4e-3 / std::max(once, 1e-9), 3.0, 400.0));
    std::vector<double> ratios;
    double best_op = 1e300, best_probe = 1e300;
    for (int r = 0; r < rounds; ++r) {
        const double op_seconds = best_of(calls, threads, op);
        double probe_seconds = best_of(calls, threads, [&] { run_probe(pool, threads, t.limit, b, bytes, t.output_bytes, 0); });
        if (t.limit != cell_limit::read)  // the faster of the limit's two probes
            probe_seconds = std::min(probe_seconds, best_of(calls, threads, [&] { run_probe(pool, threads, t.limit, b, bytes, t.output_bytes, 1); }));
        best_op = std::min(best_op, op_seconds);
        best_probe = std::min(best_probe, probe_seconds);
        ratios.push_back((t.operator_bytes / op_seconds) / (t.probe_bytes / probe_seconds));
    }
    std::nth_element(ratios.begin(), ratios.begin() + static_cast<std::ptrdiff_t>(ratios.size() / 2), ratios.end());
    return {f.name, f.layouts[static_cast<std::size_t>(layout)], element_name(e), bytes, width_bytes, threads, t.limit, 1e3 * best_op, 1e3 * best_probe,
            100.0 * ratios[ratios.size() / 2]};
}

std::string human(std::size_t bytes) { return tb::human_bytes(bytes); }

void print_table(const family_info& f, std::size_t bytes, const std::vector<element>& types, const std::vector<std::size_t>& widths,
                 const std::vector<cell>& cells) {
    std::printf("\n### %s, %s (%% of the %s limit; one thread / two threads)\n\n| width |", f.name, human(bytes).c_str(),
                f.limit == tb::limit::read ? "read limit, * of the read + write" : "copy");
    for (const char* layout : f.layouts)
        for (element e : types) std::printf(" %s, %s |", layout, element_name(e));
    std::printf("\n| ---: |");
    for (std::size_t i = 0; i < f.layouts.size() * types.size(); ++i) std::printf(" ---: |");
    std::printf("\n");
    for (std::size_t w : widths) {
        std::printf("| %s |", human(w).c_str());
        for (const char* layout : f.layouts)
            for (element e : types) {
                double one = -1, two = -1;
                bool read_write = false;
                for (const cell& c : cells)
                    if (c.family == f.name && c.layout == layout && c.type == element_name(e) && c.bytes == bytes && c.width == w) {
                        (c.threads == 1 ? one : two) = c.percent;
                        read_write = c.limit == cell_limit::read_write;
                    }
                if (one < 0 && two < 0) std::printf(" — |");
                else std::printf(" %.0f / %.0f%s |", one, two, read_write ? " *" : "");
            }
        std::printf("\n");
    }
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 7;
    const std::string family_filter = argc > 2 ? argv[2] : "";
    const std::string size_filter = argc > 3 ? argv[3] : "";
    constexpr std::size_t big = std::size_t{64} << 20, small = std::size_t{256} << 10;
    buffers b;
    b.bytes = big;
    b.x = std::aligned_alloc(4096, big);
    b.y = std::aligned_alloc(4096, 2 * big);  // argmax's int64 answers of a float16 row of 32 MiB: 128 MiB
    b.indices = static_cast<std::int64_t*>(std::aligned_alloc(4096, big / 16 * sizeof(std::int64_t)));
    if (b.x == nullptr || b.y == nullptr || b.indices == nullptr) return 1;
    std::memset(b.x, 0, big);
    std::memset(b.y, 0, 2 * big);
    tensorops::thread_pool pool(2);
    std::vector<std::size_t> widths;
    for (std::size_t w = 16; w <= (std::size_t{256} << 10); w *= 4) widths.push_back(w);
    std::vector<cell> cells;
    std::printf("# shape sweep: %d rounds a cell, median of per-round ratios (operator against its probe, paired)\n", rounds);
    for (const family_info& f : families()) {
        if (!family_filter.empty() && std::string(f.name).find(family_filter) == std::string::npos) continue;
        std::vector<element> types = {element::f32, element::f16, element::i32};
        if (f.floats_only) types.pop_back();
        for (std::size_t bytes : {big, small}) {
            if (size_filter == "big" && bytes != big) continue;
            if (size_filter == "small" && bytes != small) continue;
            std::vector<std::size_t> sizes_widths = widths;
            if (bytes == big) {  // a few very wide rows: [16, 4 MiB] and [2, 32 MiB]
                sizes_widths.push_back(std::size_t{4} << 20);
                sizes_widths.push_back(std::size_t{32} << 20);
            }
            for (element e : types) {
                fill(b, e, big, big / 16);
                for (std::size_t w : sizes_widths) {
                    if (2 * w > bytes) continue;  // at least two rows
                    const std::size_t rows = bytes / w;
                    // The indices of the rows family pick among this shape's rows.
                    for (std::size_t i = 0; i < rows; ++i) b.indices[i] %= static_cast<std::int64_t>(rows);
                    for (int layout = 0; layout < static_cast<int>(f.layouts.size()); ++layout)
                        for (int threads : {1, 2}) {
                            cell c;
                            if (e == element::f32) c = measure<float>(pool, f, layout, e, b, bytes, w, threads, rounds);
                            else if (e == element::f16) c = measure<float16>(pool, f, layout, e, b, bytes, w, threads, rounds);
                            else c = measure<std::int32_t>(pool, f, layout, e, b, bytes, w, threads, rounds);
                            cells.push_back(c);
                            std::fprintf(stderr, "%s,%s,%s,%zu,%zu,%d,%s,%.4f,%.4f,%.1f\n", c.family.c_str(), c.layout.c_str(), c.type.c_str(), c.bytes,
                                         c.width, c.threads, limit_name(c.limit), c.operator_ms, c.probe_ms, c.percent);
                        }
                }
            }
            print_table(f, bytes, types, sizes_widths, cells);
        }
    }
    std::printf("\n# CSV: family,layout,type,bytes,width,threads,limit,operator_ms,probe_ms,percent\n");
    for (const cell& c : cells)
        std::printf("%s,%s,%s,%zu,%zu,%d,%s,%.4f,%.4f,%.1f\n", c.family.c_str(), c.layout.c_str(), c.type.c_str(), c.bytes, c.width, c.threads,
                    limit_name(c.limit), c.operator_ms, c.probe_ms, c.percent);
    std::free(b.x);
    std::free(b.y);
    std::free(b.indices);
}
