// The typed fuzzer's running maximum and minimum (with and without the index of the running extreme) and cumulative
// log-sum-exp (see fuzzer.cpp): any layout of input and output, in place, interleaved with the input, overlapping it;
// an index output apart, over the input or the values, or of other sizes; every axis, direction and exclusive flag
// (the input and output views placed as typed_scan.cpp places them: place_scan_views, typed_fuzzing.hpp).
#include "typed_fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz::typed {

namespace {

/// The value a running extreme holds before any element: −inf / +inf for floating types, lowest / highest for integers.
template <class T>
T extreme_identity(bool maximum) {
    if constexpr (std::is_integral_v<T>)
        return maximum ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
    else
        return static_cast<T>(maximum ? -std::numeric_limits<float>::infinity()
                                      : std::numeric_limits<float>::infinity());
}

/// Whether two elements are the same: the same bits, or (floating types) both NaN.
template <class T>
bool same_element(const T& a, const T& b) {
    if (std::memcmp(&a, &b, sizeof(T)) == 0) return true;
    if constexpr (floating<T>) return std::isnan(value_of(a)) && std::isnan(value_of(b));
    else return false;
}

/// cumulative_max / cumulative_min, with an index output of type I when `I` is not void. Every value is an element
/// of the input (bit for bit: ties keep the first met, −0 and +0 included) or the identity; every index the reference's.
template <class T, class I>
void extreme_case(reader& in, bool maximum, const executor_choice& exec) {
    constexpr bool with_indices = !std::is_void_v<I>;
    memory m;
    placed x{}, y{}, k{};
    expectation e;
    tensorops::scan_options options;
    place_scan_views<T>(in, m, x, y, e, options);
    if constexpr (with_indices) {
        k.element_bytes = sizeof(I);
        k.rank = x.rank;
        k.sizes = x.sizes;
        if (x.rank > 0 && in.chance(8)) {
            k.sizes[in.below(static_cast<std::uint32_t>(k.rank))] += 1;
            e.breaks("indices sizes equal to the input's");
        }
        choose_strides(in, k, true);
        const std::uint32_t where = in.below(16);  // 0-13 apart, 14 over the input, 15 over the values
        if (where < 14) m.place_alone(in, k);
        else m.place_over(in, k, where == 14 ? x : y);
        if (!unique(k)) e.breaks("an indices element per coordinate");
        expect_apart(e, relate(k, x, false), "indices apart from the input");
        expect_apart(e, relate(k, y, false), "indices apart from the values");
    }
    placed* const views[] = {&x, &y, &k};
    m.allocate(in, std::span<placed* const>(views, with_indices ? 3 : 2));
    fill<T>(in, m, x, in.chance(32) ? values::general : values::ordering);
    const ref::dense<T> input = m.read<T>(x);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> source = m.view<T>(x);
        const tensorops::tensor_view<T> target = m.view<T>(y);
        with_executor_or_none(executor, [&](const auto&... on) {
            if constexpr (with_indices) {
                const tensorops::tensor_view<I> where = m.view<I>(k);
                if (maximum) tensorops::cumulative_max(on..., source, target, where, options);
                else tensorops::cumulative_min(on..., source, target, where, options);
            } else {
                if (maximum) tensorops::cumulative_max(on..., source, target, options);
                else tensorops::cumulative_min(on..., source, target, options);
            }
        });
    };
    if (!run(call, e, m, exec)) return;

    const bool reverse = options.direction == tensorops::axis_direction::decreasing;
    const ref::dense<std::int64_t> best =
        ref::cumulative_extreme_index(input, options.axis, reverse, options.exclusive, maximum);
    const ref::dense<T> values_got = m.read<T>(y);
    const std::size_t n = input.sizes.empty() ? 1 : input.sizes[options.axis];
    std::vector<std::size_t> index(input.sizes.size(), 0);
    for (std::size_t i = 0; i < best.values.size(); ++i) {
        // Row-major position i → coordinate; the extreme's coordinate differs from it along the axis only.
        std::size_t rest = i;
        for (std::size_t d = input.sizes.size(); d-- > 0;) {
            index[d] = rest % input.sizes[d];
            rest /= input.sizes[d];
        }
        const std::int64_t at = best.values[i];
        T expected = extreme_identity<T>(maximum);
        if (at >= 0) {
            index[options.axis] = static_cast<std::size_t>(at);
            expected = input[index];
        }
        if (!same_element(values_got.values[i], expected)) {
            std::fprintf(stderr, "tensorops fuzzer: running extreme %zu is %.17Lg, the reference %.17Lg\n", i,
                         value_of(values_got.values[i]), value_of(expected));
            fail("a running extreme differs from the reference");
        }
    }
    if constexpr (with_indices) {
        const ref::dense<I> indices_got = m.read<I>(k);
        for (std::size_t i = 0; i < best.values.size(); ++i) {
            // The exclusive scan's first position (no element covered) holds the traversal's first coordinate.
            const std::int64_t expected = best.values[i] >= 0 ? best.values[i]
                                          : reverse           ? static_cast<std::int64_t>(n) - 1
                                                              : 0;
            if (static_cast<std::int64_t>(indices_got.values[i]) != expected) {
                std::fprintf(stderr, "tensorops fuzzer: index %zu is %lld, the reference %lld\n", i,
                             static_cast<long long>(indices_got.values[i]), static_cast<long long>(expected));
                fail("an index of the running extreme differs from the reference");
            }
        }
    }
    if (!m.unchanged_outside(y, with_indices ? &k : nullptr)) fail("a byte outside the outputs changed");

    if (exec.get() == nullptr) return;
    const ref::dense<T> values_with = m.read<T>(y);
    ref::dense<std::int64_t> indices_with;
    if constexpr (with_indices)
        for (const I& v : m.read<I>(k).values) indices_with.values.push_back(static_cast<std::int64_t>(v));
    m.restore();
    call(nullptr);
    const ref::dense<T> values_without = m.read<T>(y);
    for (std::size_t i = 0; i < values_with.values.size(); ++i)
        if (std::memcmp(&values_with.values[i], &values_without.values[i], sizeof(T)) != 0)
            fail("the result on an executor differs from the sequential one");
    if constexpr (with_indices) {
        const ref::dense<I> indices_without = m.read<I>(k);
        for (std::size_t i = 0; i < indices_without.values.size(); ++i)
            if (static_cast<std::int64_t>(indices_without.values[i]) != indices_with.values[i])
                fail("the indices on an executor differ from the sequential ones");
    }
    if (!m.unchanged_outside(y, with_indices ? &k : nullptr))
        fail("a byte outside the outputs changed (the call without an executor)");
}

/// cumulative_log_sum_exp (floating types): every element within the arithmetic's bound of the long double reference.
template <class T>
void log_sum_exp_case(reader& in, const executor_choice& exec) {
    memory m;
    placed x{}, y{};
    expectation e;
    tensorops::scan_options options;
    place_scan_views<T>(in, m, x, y, e, options);
    placed* const views[] = {&x, &y};
    m.allocate(in, views);
    fill<T>(in, m, x, in.chance(64) ? values::exact : values::exponent);
    const ref::dense<T> input = m.read<T>(x);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> source = m.view<T>(x);
        const tensorops::tensor_view<T> target = m.view<T>(y);
        with_executor_or_none(executor, [&](const auto&... on) { tensorops::cumulative_log_sum_exp(on..., source, target, options); });
    };
    if (!run(call, e, m, exec)) return;
    const bool reverse = options.direction == tensorops::axis_direction::decreasing;
    const ref::dense<long double> expected =
        ref::cumulative_log_sum_exp(input, options.axis, reverse, options.exclusive);
    // y = m + ln s: the running sum s of up to n terms e^(x − m), each within a few ε, rescaled whenever the maximum m
    // changes (each rescale one more rounding) → a relative error of s, an absolute one of ln s, within 4·(n + 16)·ε;
    // the exponential's and logarithm's own errors (a few ulps, relative to |y| + 1); one rounding to T.
    const long double eps = accumulator_epsilon<T>();
    const long double slack =
        static_cast<long double>((input.sizes.empty() ? 1 : input.sizes[options.axis]) + 16) * eps;
    check_results<T>(m, y, expected, [&](std::size_t i) {
        const long double size = std::fabs(expected.values[i]);
        return 4 * slack + 64 * eps * (size + 1) + output_epsilon<T>() * size + smallest<T>();
    });
    same_without_executor<T>(call, m, exec, y);
}

}  // namespace

void fuzz_extreme_scan(reader& in, element_type type, bool log_sum_exp, const executor_choice& exec) {
    visit(type, [&]<class T>(std::type_identity<T>) {
        if constexpr (floating<T>) {
            if (log_sum_exp) {
                current = operation::cumulative_log_sum_exp;
                log_sum_exp_case<T>(in, exec);
                return;
            }
        }
        const bool maximum = in.chance(128);
        current = maximum ? operation::cumulative_max : operation::cumulative_min;
        if (in.chance(128)) extreme_case<T, void>(in, maximum, exec);
        else visit_index(in.below(4), [&]<class I>(std::type_identity<I>) { extreme_case<T, I>(in, maximum, exec); });
    });
}

}  // namespace tensorops_fuzz::typed
