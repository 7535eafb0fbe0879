// Scatter-ND / gather-ND benchmarks (issue 5), f32 with int64 indices:
//   element  1M random element indices (k = 1, [1M, 1]) into / out of a 4M-element tensor (16 MiB);
//   rows     64K random rows of 64 f32 (k = 1, [64K, 1]) into / out of a (1M, 64) tensor (256 MiB).
// Indices are uniform over the tensor (duplicates included: ~12 % of the element tuples repeat one). tensorops
// beside the plain unchecked loop a user would write (no validation, no negative indices, no aliasing checks),
// xtensor's `view(…, keep(indices))` when installed, and the validation pass alone (to show its share).
// Row benchmarks also run "-cold": rotating through 16 index sets, so their rows are in no cache (rotating_row_indices).
// Every benchmark pairs each pass with a pass of the copy limit's memcpy (tb::paired_copy_limit): paired_… counters.
// Scatter runs in place (output = input, so the input → output copy is skipped: what a training step does);
// one element-scatter variant runs out of place to show the cost of the copy.
// Bytes counted (harness convention, reads + writes once each): scatter = indices + updates read + updated
// elements written (+ input read and output written by the copy); gather = indices + selected elements read +
// output written. Limit: copy (data is streamed in and out).
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

#include <array>
#include <cstring>
#include <map>
#include <tuple>
#include <vector>

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xview.hpp>
#endif

namespace {

constexpr std::size_t element_count = std::size_t{4} << 20;  // 4M f32 (16 MiB)
constexpr std::size_t element_tuples = std::size_t{1} << 20;  // 1M
constexpr std::size_t row_count = std::size_t{1} << 20;       // 1M rows …
constexpr std::size_t row_length = 64;                        // … of 64 f32 (256 MiB)
constexpr std::size_t row_tuples = std::size_t{64} << 10;     // 64K rows scattered / gathered

// Pool slots of this file (other benchmark files use 0–3).
enum slot : int { element_tensor = 40, element_updates, element_indices, element_output, rows_tensor, rows_updates, rows_indices, rows_output, rows_index_sets };

/// Uniform random indices in [0, extent), deterministic; filled on the first request of the process only (the
/// slot is this file's alone, and the benchmarks never write to it).
std::span<const std::int64_t> random_indices(std::size_t count, std::size_t extent, int pool_slot, std::uint64_t seed) {
    auto indices = tb::scratch<std::int64_t>(count, pool_slot);
    static std::map<int, bool> filled;
    if (!filled[pool_slot]) {
        tb::splitmix64 rng(seed);
        for (auto& index : indices) index = static_cast<std::int64_t>(rng() % extent);
        filled[pool_slot] = true;
    }
    return indices;
}

/// The tensor scattered into (writable): random floats, filled once per process (256 MiB takes a while; the
/// benchmarks overwrite elements with other random floats, which changes nothing that is measured).
std::span<float> target_tensor(std::size_t count, int pool_slot, std::uint64_t seed) {
    auto tensor = tb::scratch<float>(count, pool_slot);
    static std::map<int, bool> filled;
    if (!filled[pool_slot]) {
        tb::fill_uniform(tensor, seed);
        filled[pool_slot] = true;
    }
    return tensor;
}

struct element_problem {
    std::span<float> tensor;
    std::span<const float> updates;
    std::span<const std::int64_t> indices;
    tensorops::tensor_view<float> tensor_view() const { return {tensor.data(), {element_count}}; }
    tensorops::tensor_view<const std::int64_t> index_view() const { return {indices.data(), {element_tuples, 1}}; }
    tensorops::tensor_view<const float> update_view() const { return {updates.data(), {element_tuples}}; }
};

element_problem make_element_problem() {
    return {target_tensor(element_count, element_tensor, 7), tb::random_input<float>(element_tuples, element_updates, 8), random_indices(element_tuples, element_count, element_indices, 9)};
}

struct row_problem {
    std::span<float> tensor;
    std::span<const float> updates;
    std::span<const std::int64_t> indices;
    tensorops::tensor_view<float> tensor_view() const { return {tensor.data(), {row_count, row_length}}; }
    tensorops::tensor_view<const std::int64_t> index_view() const { return {indices.data(), {row_tuples, 1}}; }
    tensorops::tensor_view<const float> update_view() const { return {updates.data(), {row_tuples, row_length}}; }
};

row_problem make_row_problem() {
    return {target_tensor(row_count * row_length, rows_tensor, 10), tb::random_input<float>(row_tuples * row_length, rows_updates, 11), random_indices(row_tuples, row_count, rows_indices, 12)};
}

/// The "-cold" row benchmarks rotate through this many sets of random row indices, so that the rows a pass touches
/// were last touched cold_sets passes (256 MiB of rows) before: evicted from every cache. The others use one set,
/// as an iteration loop does: its 16 MiB of rows may still be in the last-level cache from the pass before.
constexpr std::size_t cold_sets = 16;

/// Pass n's indices of the cold row benchmarks: set n mod cold_sets.
struct rotating_row_indices {
    std::span<const std::int64_t> sets = random_indices(cold_sets * row_tuples, row_count, rows_index_sets, 13);
    std::size_t pass = 0;
    const std::int64_t* next() { return sets.data() + (pass++ % cold_sets) * row_tuples; }
};

constexpr auto element_scatter_bytes = static_cast<std::int64_t>(element_tuples * (sizeof(std::int64_t) + 2 * sizeof(float)));
constexpr auto element_copy_bytes = static_cast<std::int64_t>(2 * element_count * sizeof(float));
constexpr auto row_bytes = static_cast<std::int64_t>(row_tuples * (sizeof(std::int64_t) + 2 * row_length * sizeof(float)));

void done(const void* p) {
    benchmark::DoNotOptimize(p);
    benchmark::ClobberMemory();
}

// ---------------------------------------------------------------------------------------------
// Element scatter: 1M random elements of a 4M-element tensor.

void BM_scatter_elements_tensorops(benchmark::State& state) {
    const auto p = make_element_problem();
    const auto t = p.tensor_view();
    tb::run_paired(state, element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(t, p.index_view(), p.update_view(), t);
        done(p.tensor.data());
    });
}

void BM_scatter_elements_tensorops_add(benchmark::State& state) {
    const auto p = make_element_problem();
    const auto t = p.tensor_view();
    tb::run_paired(state, element_scatter_bytes + static_cast<std::int64_t>(element_tuples * sizeof(float)), tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(t, p.index_view(), p.update_view(), t, tensorops::scatter_reduction::add);
        done(p.tensor.data());
    });
    state.SetLabel("reduction add: reads the elements too");
}

void BM_scatter_elements_tensorops_copy(benchmark::State& state) {
    const auto p = make_element_problem();
    auto output = tb::scratch<float>(element_count, element_output);
    const tensorops::tensor_view<float> out(output.data(), {element_count});
    tb::run_paired(state, element_scatter_bytes + element_copy_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(p.tensor_view(), p.index_view(), p.update_view(), out);
        done(output.data());
    });
    state.SetLabel("out of place: copies 16 MiB first");
}

void BM_scatter_elements_validation_only(benchmark::State& state) {
    const auto p = make_element_problem();
    const auto t = p.tensor_view();
    const auto indices = p.index_view();
    namespace d = tensorops::detail;
    tb::run_paired(state, static_cast<std::int64_t>(element_tuples * sizeof(std::int64_t)), tb::limit::copy, tb::paired_copy_limit(), [&] {
        // What scatter_nd does before it writes: plan the tuples, check every one.
        const auto plan = d::plan_tuples(d::layout_of(indices), d::layout_of(p.update_view()), d::layout_of(t), 0);
        d::validate_tuples(tensorops::sequential, "scatter_nd", indices, plan, "input");
        done(p.indices.data());
    });
    state.SetLabel("validation pass alone (bytes: indices read)");
}

void BM_scatter_elements_plain_loop(benchmark::State& state) {
    const auto p = make_element_problem();
    tb::run_paired(state, element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        float* t = p.tensor.data();
        const float* u = p.updates.data();
        const std::int64_t* index = p.indices.data();
        for (std::size_t i = 0; i < element_tuples; ++i) t[index[i]] = u[i];
        done(t);
    });
    state.SetLabel("unchecked");
}

// ---------------------------------------------------------------------------------------------
// Row scatter: 64K random rows of 64 f32 into a (1M, 64) tensor.

void BM_scatter_rows_tensorops(benchmark::State& state) {
    const auto p = make_row_problem();
    const auto t = p.tensor_view();
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(t, p.index_view(), p.update_view(), t);
        done(p.tensor.data());
    });
}

void BM_scatter_rows_tensorops_add(benchmark::State& state) {
    const auto p = make_row_problem();
    const auto t = p.tensor_view();
    tb::run_paired(state, row_bytes + static_cast<std::int64_t>(row_tuples * row_length * sizeof(float)), tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(t, p.index_view(), p.update_view(), t, tensorops::scatter_reduction::add);
        done(p.tensor.data());
    });
    state.SetLabel("reduction add: reads the rows too");
}

void BM_scatter_rows_plain_loop(benchmark::State& state) {
    const auto p = make_row_problem();
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        float* t = p.tensor.data();
        for (std::size_t i = 0; i < row_tuples; ++i)
            std::memcpy(t + p.indices[i] * static_cast<std::int64_t>(row_length), p.updates.data() + i * row_length, row_length * sizeof(float));
        done(t);
    });
    state.SetLabel("unchecked memcpy per row");
}

void BM_scatter_rows_tensorops_cold(benchmark::State& state) {
    const auto p = make_row_problem();
    const auto t = p.tensor_view();
    rotating_row_indices indices;
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::scatter_nd(t, tensorops::tensor_view<const std::int64_t>(indices.next(), {row_tuples, 1}), p.update_view(), t);
        done(p.tensor.data());
    });
    state.SetLabel("rows not in any cache");
}

void BM_scatter_rows_plain_loop_cold(benchmark::State& state) {
    const auto p = make_row_problem();
    rotating_row_indices indices;
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        float* t = p.tensor.data();
        const std::int64_t* index = indices.next();
        for (std::size_t i = 0; i < row_tuples; ++i)
            std::memcpy(t + index[i] * static_cast<std::int64_t>(row_length), p.updates.data() + i * row_length, row_length * sizeof(float));
        done(t);
    });
    state.SetLabel("unchecked memcpy per row; rows not in any cache");
}

// ---------------------------------------------------------------------------------------------
// Gather: the same rows and elements read back.

void BM_gather_rows_tensorops(benchmark::State& state) {
    const auto p = make_row_problem();
    auto output = tb::scratch<float>(row_tuples * row_length, rows_output);
    const tensorops::tensor_view<float> out(output.data(), {row_tuples, row_length});
    const tensorops::tensor_view<const float> t = p.tensor_view();
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::gather_nd(t, p.index_view(), out);
        done(output.data());
    });
}

void BM_gather_rows_plain_loop(benchmark::State& state) {
    const auto p = make_row_problem();
    auto output = tb::scratch<float>(row_tuples * row_length, rows_output);
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        for (std::size_t i = 0; i < row_tuples; ++i)
            std::memcpy(output.data() + i * row_length, p.tensor.data() + p.indices[i] * static_cast<std::int64_t>(row_length), row_length * sizeof(float));
        done(output.data());
    });
    state.SetLabel("unchecked memcpy per row");
}

void BM_gather_rows_tensorops_cold(benchmark::State& state) {
    const auto p = make_row_problem();
    auto output = tb::scratch<float>(row_tuples * row_length, rows_output);
    const tensorops::tensor_view<float> out(output.data(), {row_tuples, row_length});
    const tensorops::tensor_view<const float> t = p.tensor_view();
    rotating_row_indices indices;
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::gather_nd(t, tensorops::tensor_view<const std::int64_t>(indices.next(), {row_tuples, 1}), out);
        done(output.data());
    });
    state.SetLabel("rows not in any cache");
}

void BM_gather_rows_plain_loop_cold(benchmark::State& state) {
    const auto p = make_row_problem();
    auto output = tb::scratch<float>(row_tuples * row_length, rows_output);
    rotating_row_indices indices;
    tb::run_paired(state, row_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        const std::int64_t* index = indices.next();
        for (std::size_t i = 0; i < row_tuples; ++i)
            std::memcpy(output.data() + i * row_length, p.tensor.data() + index[i] * static_cast<std::int64_t>(row_length), row_length * sizeof(float));
        done(output.data());
    });
    state.SetLabel("unchecked memcpy per row; rows not in any cache");
}

/// What reading the gathered rows alone costs, rows in no cache: a sum of the same random rows, hinted as far ahead
/// as gather_nd hints them — the speed at which one core can fetch random 256-byte rows from memory here, which a
/// gather (that also writes them out) cannot beat. Bytes: indices + rows read.
void BM_gather_rows_read_probe_cold(benchmark::State& state) {
    const auto p = make_row_problem();
    rotating_row_indices indices;
    constexpr std::size_t ahead = 32;  // as simd::tuples_ahead(256)
    tb::run_paired(state, static_cast<std::int64_t>(row_tuples * (sizeof(std::int64_t) + row_length * sizeof(float))), tb::limit::copy,
                   tb::paired_copy_limit(), [&] {
                       const std::int64_t* index = indices.next();
                       const float* t = p.tensor.data();
                       std::array<float, row_length> sum{};
                       for (std::size_t i = 0; i < row_tuples; ++i) {
                           if (i + ahead < row_tuples)
                               for (std::size_t line = 0; line < row_length * sizeof(float); line += 64)
                                   __builtin_prefetch(reinterpret_cast<const char*>(t + index[i + ahead] * static_cast<std::int64_t>(row_length)) + line);
                           const float* row = t + index[i] * static_cast<std::int64_t>(row_length);
                           for (std::size_t j = 0; j < row_length; ++j) sum[j] += row[j];
                       }
                       benchmark::DoNotOptimize(sum);
                   });
    state.SetLabel("a sum of the random rows, no output; rows not in any cache");
}

void BM_gather_elements_tensorops(benchmark::State& state) {
    const auto p = make_element_problem();
    auto output = tb::scratch<float>(element_tuples, element_output);
    const tensorops::tensor_view<float> out(output.data(), {element_tuples});
    const tensorops::tensor_view<const float> t = p.tensor_view();
    tb::run_paired(state, element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        tensorops::gather_nd(t, p.index_view(), out);
        done(output.data());
    });
}

void BM_gather_elements_plain_loop(benchmark::State& state) {
    const auto p = make_element_problem();
    auto output = tb::scratch<float>(element_tuples, element_output);
    tb::run_paired(state, element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        const float* t = p.tensor.data();
        const std::int64_t* index = p.indices.data();
        float* out = output.data();
        for (std::size_t i = 0; i < element_tuples; ++i) out[i] = t[index[i]];
        done(out);
    });
    state.SetLabel("unchecked");
}

// ---------------------------------------------------------------------------------------------
// xtensor: view(tensor, keep(indices)[, all()]) selects the indexed elements or rows along axis 0; assigning
// to it scatters (in index order: the last duplicate wins), assigning from it gathers.

#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
template <bool Rows>
auto xtensor_operands() {
    constexpr std::size_t rows = Rows ? row_count : element_count, tuples = Rows ? row_tuples : element_tuples, width = Rows ? row_length : 1;
    const auto p = [] {
        if constexpr (Rows) return make_row_problem();
        else return make_element_problem();
    }();
    std::vector<std::size_t> indices(p.indices.begin(), p.indices.end());  // keep() wants unsigned indices
    auto t = xt::adapt(p.tensor.data(), rows * width, xt::no_ownership(), std::array<std::size_t, 2>{rows, width});
    const auto u = xt::adapt(p.updates.data(), tuples * width, xt::no_ownership(), std::array<std::size_t, 2>{tuples, width});
    return std::make_tuple(t, u, std::move(indices));
}

template <bool Rows>
void BM_scatter_xtensor(benchmark::State& state) {
    auto [t, u, indices] = xtensor_operands<Rows>();
    tb::run_paired(state, Rows ? row_bytes : element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        xt::view(t, xt::keep(indices), xt::all()) = u;
        done(t.data());
    });
    state.SetLabel("view(t, keep(indices), all()) = updates");
}

template <bool Rows>
void BM_gather_xtensor(benchmark::State& state) {
    auto [t, u, indices] = xtensor_operands<Rows>();
    constexpr std::size_t tuples = Rows ? row_tuples : element_tuples, width = Rows ? row_length : 1;
    auto output = tb::scratch<float>(tuples * width, Rows ? rows_output : element_output);
    auto out = xt::adapt(output.data(), tuples * width, xt::no_ownership(), std::array<std::size_t, 2>{tuples, width});
    tb::run_paired(state, Rows ? row_bytes : element_scatter_bytes, tb::limit::copy, tb::paired_copy_limit(), [&] {
        out = xt::view(t, xt::keep(indices), xt::all());
        done(output.data());
    });
    state.SetLabel("out = view(t, keep(indices), all())");
}
#endif

}  // namespace

BENCHMARK(BM_scatter_elements_tensorops)->Name("scatter/elements/tensorops")->Apply(tb::defaults);
BENCHMARK(BM_scatter_elements_validation_only)->Name("scatter/elements/tensorops-validation-only")->Apply(tb::defaults);
BENCHMARK(BM_scatter_elements_plain_loop)->Name("scatter/elements/plain-loop")->Apply(tb::defaults);
BENCHMARK(BM_scatter_elements_tensorops_add)->Name("scatter/elements/tensorops-add")->Apply(tb::defaults);
BENCHMARK(BM_scatter_elements_tensorops_copy)->Name("scatter/elements/tensorops-out-of-place")->Apply(tb::defaults);
BENCHMARK(BM_scatter_rows_tensorops)->Name("scatter/rows/tensorops")->Apply(tb::defaults);
BENCHMARK(BM_scatter_rows_plain_loop)->Name("scatter/rows/plain-loop")->Apply(tb::defaults);
BENCHMARK(BM_scatter_rows_tensorops_add)->Name("scatter/rows/tensorops-add")->Apply(tb::defaults);
BENCHMARK(BM_gather_rows_tensorops)->Name("gather/rows/tensorops")->Apply(tb::defaults);
BENCHMARK(BM_gather_rows_plain_loop)->Name("gather/rows/plain-loop")->Apply(tb::defaults);
BENCHMARK(BM_scatter_rows_tensorops_cold)->Name("scatter/rows/tensorops-cold")->Apply(tb::defaults);
BENCHMARK(BM_scatter_rows_plain_loop_cold)->Name("scatter/rows/plain-loop-cold")->Apply(tb::defaults);
BENCHMARK(BM_gather_rows_tensorops_cold)->Name("gather/rows/tensorops-cold")->Apply(tb::defaults);
BENCHMARK(BM_gather_rows_plain_loop_cold)->Name("gather/rows/plain-loop-cold")->Apply(tb::defaults);
BENCHMARK(BM_gather_rows_read_probe_cold)->Name("gather/rows/read-probe-cold")->Apply(tb::defaults);
BENCHMARK(BM_gather_elements_tensorops)->Name("gather/elements/tensorops")->Apply(tb::defaults);
BENCHMARK(BM_gather_elements_plain_loop)->Name("gather/elements/plain-loop")->Apply(tb::defaults);
#ifdef TENSOROPS_BENCH_HAVE_XTENSOR
BENCHMARK_TEMPLATE(BM_scatter_xtensor, false)->Name("scatter/elements/xtensor")->Apply(tb::defaults);
BENCHMARK_TEMPLATE(BM_scatter_xtensor, true)->Name("scatter/rows/xtensor")->Apply(tb::defaults);
BENCHMARK_TEMPLATE(BM_gather_xtensor, false)->Name("gather/elements/xtensor")->Apply(tb::defaults);
BENCHMARK_TEMPLATE(BM_gather_xtensor, true)->Name("gather/rows/xtensor")->Apply(tb::defaults);
#endif
