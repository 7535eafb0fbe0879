// The output-uniqueness check (tensor_view::is_unique, which every operator runs on its output before anything
// else) beside the operator it guards: cumulative_sum of 16 Mi f32 elements (64 MiB in, the interleaved layout
// out), for interleaved outputs — complex planes over re/im pairs, colour planes over RGB triples, odd/even
// halves, and a small non-nested group under a large dimension.
// "uniqueness/check/<layout>" times is_unique() alone (no bytes moved: see its time and allocs_per_iter);
// "uniqueness/cumsum/<layout>" times the whole call, check included (bytes: input read + output written; limit: copy).
// Method and figures: bench/journal/2026-11-28-uniqueness-check.md.
#include "harness.hpp"

#include <tensorops/tensorops.hpp>

namespace {

constexpr std::size_t elements = std::size_t{1} << 24;

struct interleaved_layout {
    const char* name;
    std::vector<std::size_t> sizes;
    std::vector<std::ptrdiff_t> strides;
    std::size_t axis;  // the scan axis of the cumsum benchmark
};

const std::vector<interleaved_layout>& layouts() {
    static const std::vector<interleaved_layout> all{
        // [2, n/2] over re/im pairs: dimension 0 picks re or im (stride 1), dimension 1 walks the pairs.
        {"complex-planes", {2, elements / 2}, {1, 2}, 1},
        // [3, n/3] over RGB triples: one plane per colour.
        {"rgb-planes", {3, elements / 3}, {1, 3}, 1},
        // [n/2 − 1, 2] with strides {2, 3}: the even elements, then the odd ones from 3 (two dimensions, not nested).
        {"odd-even", {elements / 2 - 1, 2}, {2, 3}, 0},
        // [n/6, 3, 2] with strides {6, 2, 3}: each block of 6 filled as 0 3 2 5 4 7 − 1 … (a group of 6, not nested).
        {"group-of-6", {elements / 6 - 1, 3, 2}, {6, 2, 3}, 0},
    };
    return all;
}

std::size_t count_of(const interleaved_layout& layout) {
    std::size_t count = 1;
    for (std::size_t s : layout.sizes) count *= s;
    return count;
}

void BM_check(benchmark::State& state) {
    const interleaved_layout& layout = layouts()[static_cast<std::size_t>(state.range(0))];
    auto out = tb::scratch<float>(elements + 8, 1);
    const tensorops::tensor_view<float> y(out.data(), layout.sizes, layout.strides);
    state.SetLabel(layout.name);
    tb::run(state, 0, tb::limit::copy, [&] {
        benchmark::DoNotOptimize(y.is_unique());
        benchmark::ClobberMemory();
    });
}

void BM_cumsum(benchmark::State& state) {
    const interleaved_layout& layout = layouts()[static_cast<std::size_t>(state.range(0))];
    const std::size_t count = count_of(layout);
    auto in = tb::random_input<float>(elements, 0);
    auto out = tb::scratch<float>(elements + 8, 1);
    const tensorops::tensor_view<const float> x(in.data(), layout.sizes);
    const tensorops::tensor_view<float> y(out.data(), layout.sizes, layout.strides);
    const tensorops::scan_options options{layout.axis};
    state.SetLabel(layout.name);
    tb::run(state, static_cast<std::int64_t>(2 * count * sizeof(float)), tb::limit::copy, [&] {
        tensorops::cumulative_sum(x, y, options);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    });
}

void each_layout(benchmark::internal::Benchmark* b) {
    for (std::size_t i = 0; i < layouts().size(); ++i) b->Arg(static_cast<std::int64_t>(i));
}

}  // namespace

BENCHMARK(BM_check)->Name("uniqueness/check")->Apply(each_layout)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_cumsum)->Name("uniqueness/cumsum")->Apply(each_layout)->Unit(benchmark::kMillisecond);
