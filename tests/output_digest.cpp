// tests/output_digest.cpp — prints a digest of the outputs of a fixed set of operator calls: every operator family on
// random float64/float32/float16 and integer inputs (fixed seeds), in several layouts, axes and directions, long enough
// to reach the blocked and vectorised paths. Two builds at the same instruction set must print the same lines: the
// check that results are bit-identical across xsimd versions (tools/test-xsimd.sh compares them), which the tests
// against the reference cannot make (they allow the rounding differences a reordered sum may have).
//
// Output: one line per family, "<family> <64-bit FNV-1a of every output byte, in call order>", then "all <digest>".
// The first line names the xsimd in use and the register width: those differ between builds, the digests must not.
#include <tensorops/tensorops.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

namespace {

using tensorops::axis_direction;
using tensorops::float16;
using tensorops::reduce_function;
using tensorops::tensor_view;

/// 64-bit FNV-1a over bytes.
struct digest {
    std::uint64_t state = 0xcbf29ce484222325ULL;
    void add(const void* data, std::size_t bytes) {
        const auto* p = static_cast<const unsigned char*>(data);
        for (std::size_t i = 0; i < bytes; ++i) state = (state ^ p[i]) * 0x100000001b3ULL;
    }
    template <class T>
    void add(const std::vector<T>& values) {
        add(values.data(), values.size() * sizeof(T));
    }
};

/// splitmix64: the same stream on every platform and library (no std:: distribution, whose algorithm is unspecified).
struct random_stream {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    /// Uniform in [low, high), from 53 random bits.
    double uniform(double low, double high) { return low + (high - low) * static_cast<double>(next() >> 11) * 0x1p-53; }
};

/// `count` random elements of T: floats in [-4, 4) (products stay finite over short lines) with one NaN and one
/// infinity among the first thousand when `specials`; integers over their whole range.
template <class T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed, bool specials = false) {
    random_stream rng{seed};
    std::vector<T> values(count);
    for (auto& v : values) {
        if constexpr (std::is_integral_v<T>) v = static_cast<T>(rng.next());
        else v = static_cast<T>(static_cast<float>(rng.uniform(-4.0, 4.0)));
    }
    if constexpr (!std::is_integral_v<T>) {
        if (specials && count > 1000) {
            values[count / 3 % 1000] = static_cast<T>(std::numeric_limits<float>::quiet_NaN());
            values[count / 7 % 1000 + 1] = static_cast<T>(std::numeric_limits<float>::infinity());
        }
    }
    return values;
}

/// The strides of a packed row-major tensor of `sizes`, listed in the order of `order` (order[0] outermost in memory):
/// a transposed layout when order is not 0, 1, 2, …
std::vector<std::ptrdiff_t> strides_in_order(const std::vector<std::size_t>& sizes, const std::vector<std::size_t>& order) {
    std::vector<std::ptrdiff_t> strides(sizes.size());
    std::ptrdiff_t step = 1;
    for (std::size_t i = order.size(); i-- > 0;) {
        strides[order[i]] = step;
        step *= static_cast<std::ptrdiff_t>(sizes[order[i]]);
    }
    return strides;
}

std::size_t element_count(const std::vector<std::size_t>& sizes) {
    std::size_t n = 1;
    for (const auto s : sizes) n *= s;
    return n;
}

struct scan_case {
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> order;  // memory order of the input (the output is packed)
    std::size_t axis;
};

const std::vector<scan_case>& scan_cases() {
    static const std::vector<scan_case> cases = {
        {{3, 1000}, {0, 1}, 1},        // along contiguous rows
        {{1, 200000}, {0, 1}, 1},      // one long row: the blocked scans (past scan_block_bytes for 4-byte types)
        {{257, 5}, {0, 1}, 0},         // across short rows
        {{4, 33, 7}, {0, 1, 2}, 1},    // a middle axis
        {{9, 70, 3}, {2, 0, 1}, 2},    // a transposed input
        {{600, 40}, {0, 1}, 0},        // across rows, a strip of columns
    };
    return cases;
}

/// cumulative_sum and cumulative_product (floats: sum only over long lines, products of the short ones) for every
/// scan case, direction and exclusivity.
template <class T>
void scans(digest& d, std::uint64_t seed) {
    for (const auto& c : scan_cases()) {
        const std::size_t n = element_count(c.sizes);
        const auto input = random_values<T>(n, seed++);
        const auto strides = strides_in_order(c.sizes, c.order);
        const tensor_view<const T> x(input.data(), c.sizes, strides);
        std::vector<T> output(n);
        const tensor_view<T> y(output.data(), c.sizes);
        for (const auto direction : {axis_direction::increasing, axis_direction::decreasing})
            for (const bool exclusive : {false, true}) {
                const tensorops::scan_options options{.axis = c.axis, .direction = direction, .exclusive = exclusive};
                tensorops::cumulative_sum(x, y, options);
                d.add(output);
                if (std::is_integral_v<T> || c.sizes[c.axis] <= 1000) {
                    tensorops::cumulative_product(x, y, options);
                    d.add(output);
                }
            }
    }
}

/// Running extremes with their indices, and (floating types) the cumulative log-sum-exp.
template <class T>
void extreme_scans(digest& d, std::uint64_t seed) {
    for (const auto& c : scan_cases()) {
        const std::size_t n = element_count(c.sizes);
        const auto input = random_values<T>(n, seed++, true);
        const auto strides = strides_in_order(c.sizes, c.order);
        const tensor_view<const T> x(input.data(), c.sizes, strides);
        std::vector<T> values(n);
        std::vector<std::int64_t> indices(n);
        const tensor_view<T> y(values.data(), c.sizes);
        const tensor_view<std::int64_t> where(indices.data(), c.sizes);
        for (const auto direction : {axis_direction::increasing, axis_direction::decreasing}) {
            const tensorops::scan_options options{.axis = c.axis, .direction = direction, .exclusive = direction == axis_direction::decreasing};
            tensorops::cumulative_max(x, y, where, options);
            d.add(values);
            d.add(indices);
            tensorops::cumulative_min(x, y, options);
            d.add(values);
            if constexpr (!std::is_integral_v<T>) {
                tensorops::cumulative_log_sum_exp(x, y, options);
                d.add(values);
            }
        }
    }
}

struct reduce_case {
    std::vector<std::size_t> sizes;
    std::vector<std::size_t> order;
    std::vector<std::size_t> axes;
};

const std::vector<reduce_case>& reduce_cases() {
    static const std::vector<reduce_case> cases = {
        {{7, 130, 9}, {0, 1, 2}, {1}},     {{7, 130, 9}, {0, 1, 2}, {2}},    {{7, 130, 9}, {0, 1, 2}, {0, 2}},
        {{7, 130, 9}, {2, 1, 0}, {0, 1, 2}}, {{2, 5000}, {0, 1}, {1}},       {{3000, 6}, {0, 1}, {0}},
        {{40, 3}, {0, 1}, {1}},            {{1, 70000}, {0, 1}, {1}},        {{5, 64, 64}, {1, 2, 0}, {1, 2}},
    };
    return cases;
}

/// Every reduce function T allows, and argmax/argmin both ways (int64 and int32 indices), for every reduce case.
template <class T>
void reductions(digest& d, std::uint64_t seed) {
    for (const auto& c : reduce_cases()) {
        const std::size_t n = element_count(c.sizes);
        const bool specials = seed % 2 == 0;
        const auto input = random_values<T>(n, seed++, specials);
        const tensor_view<const T> x(input.data(), c.sizes, strides_in_order(c.sizes, c.order));
        std::vector<std::size_t> reduced = c.sizes;
        for (const auto axis : c.axes) reduced[axis] = 1;
        std::vector<T> output(element_count(reduced));
        const tensor_view<T> y(output.data(), reduced);
        for (int f = 0; f <= static_cast<int>(reduce_function::sum_square); ++f) {
            const auto function = static_cast<reduce_function>(f);
            if (function == reduce_function::argmax || function == reduce_function::argmin) continue;
            const bool floating_only = function == reduce_function::average || function == reduce_function::l2 ||
                                       function == reduce_function::log_sum || function == reduce_function::log_sum_exp;
            if (floating_only && std::is_integral_v<T>) continue;
            tensorops::reduce(x, y, function, c.axes);
            d.add(output);
        }
        std::vector<std::int64_t> wide(output.size());
        std::vector<std::int32_t> narrow(output.size());
        for (const auto direction : {axis_direction::increasing, axis_direction::decreasing}) {
            tensorops::argmax(x, tensor_view<std::int64_t>(wide.data(), reduced), c.axes, direction);
            d.add(wide);
            tensorops::argmin(x, tensor_view<std::int32_t>(narrow.data(), reduced), c.axes, direction);
            d.add(narrow);
        }
    }
}

/// scatter_nd with every reduction T allows (duplicate indices included) and gather_nd, of whole rows and of elements.
template <class T>
void scatter_gather(digest& d, std::uint64_t seed) {
    const std::vector<std::size_t> sizes = {50, 37};
    const auto input = random_values<T>(50 * 37, seed);
    const tensor_view<const T> x(input.data(), sizes);
    random_stream rng{seed + 1};
    for (const std::size_t k : {std::size_t{1}, std::size_t{2}}) {
        const std::size_t tuples = 80;  // more than the rows: duplicates
        std::vector<std::int64_t> indices(tuples * k);
        for (std::size_t i = 0; i < tuples; ++i)
            for (std::size_t j = 0; j < k; ++j) indices[i * k + j] = static_cast<std::int64_t>(rng.next() % sizes[j]);
        const tensor_view<const std::int64_t> where(indices.data(), {tuples, k});
        const std::vector<std::size_t> update_sizes = k == 1 ? std::vector<std::size_t>{tuples, 37} : std::vector<std::size_t>{tuples};
        const auto updates = random_values<T>(element_count(update_sizes), seed + 2 + k);
        const tensor_view<const T> u(updates.data(), update_sizes);
        std::vector<T> output(input.size());
        const tensor_view<T> y(output.data(), sizes);
        for (const auto reduction : {tensorops::scatter_reduction::none, tensorops::scatter_reduction::add, tensorops::scatter_reduction::multiply,
                                     tensorops::scatter_reduction::max, tensorops::scatter_reduction::min}) {
            tensorops::scatter_nd(x, where, u, y, reduction);
            d.add(output);
        }
        std::vector<T> gathered(element_count(update_sizes));
        tensorops::gather_nd(x, where, tensor_view<T>(gathered.data(), update_sizes));
        d.add(gathered);
    }
}

template <class... Types>
std::uint64_t family(std::string_view name, std::uint64_t seed, auto&& body, std::uint64_t& all) {
    digest d;
    (body.template operator()<Types>(d, seed += 1000), ...);
    std::printf("%.*s %016llx\n", static_cast<int>(name.size()), name.data(), static_cast<unsigned long long>(d.state));
    all = (all ^ d.state) * 0x100000001b3ULL;
    return d.state;
}

}  // namespace

int main() {
#if TENSOROPS_HAS_XSIMD
    std::printf("xsimd %d.%d.%d, %zu-byte registers\n", XSIMD_VERSION_MAJOR, XSIMD_VERSION_MINOR, XSIMD_VERSION_PATCH,
                sizeof(tensorops::simd::pack<float>));
#else
    std::printf("no xsimd, one lane\n");
#endif
    std::uint64_t all = 0xcbf29ce484222325ULL;
    const auto run_scans = []<class T>(digest& d, std::uint64_t seed) { scans<T>(d, seed); };
    const auto run_extremes = []<class T>(digest& d, std::uint64_t seed) { extreme_scans<T>(d, seed); };
    const auto run_reductions = []<class T>(digest& d, std::uint64_t seed) { reductions<T>(d, seed); };
    const auto run_scatter = []<class T>(digest& d, std::uint64_t seed) { scatter_gather<T>(d, seed); };
    family<float, double, float16>("scans-floating", 1, run_scans, all);
    family<std::int8_t, std::uint16_t, std::int32_t, std::int64_t>("scans-integer", 2, run_scans, all);
    family<float, double, float16>("extremes-floating", 3, run_extremes, all);
    family<std::int8_t, std::int32_t, std::uint64_t>("extremes-integer", 4, run_extremes, all);
    family<float, double, float16>("reduce-floating", 5, run_reductions, all);
    family<std::int8_t, std::uint8_t, std::int16_t, std::int32_t, std::uint32_t, std::int64_t>("reduce-integer", 6, run_reductions, all);
    family<float, double, float16, std::int32_t>("scatter-gather", 7, run_scatter, all);
    std::printf("all %016llx\n", static_cast<unsigned long long>(all));
    return 0;
}
