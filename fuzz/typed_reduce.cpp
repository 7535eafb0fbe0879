// The typed fuzzer's reduce (the twelve functions), argmax and argmin (see fuzzer.cpp): any layout of input and
// output, the output interleaved with the input or overlapping it, any set of axes in any order (none at all, empty
// groups), both directions; broken arguments now and then.
#include "typed_fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz::typed {

namespace {

using tensorops::reduce_function;

/// The value SEMANTICS.md §5 gives an empty group.
template <class T>
long double empty_group_value(reduce_function f) {
    constexpr long double inf = std::numeric_limits<long double>::infinity();
    switch (f) {
        case reduce_function::multiply: return 1;
        case reduce_function::max:
            if constexpr (floating<T>) return -inf;
            else return static_cast<long double>(std::numeric_limits<T>::lowest());
        case reduce_function::min:
            if constexpr (floating<T>) return inf;
            else return static_cast<long double>(std::numeric_limits<T>::max());
        case reduce_function::log_sum:
        case reduce_function::log_sum_exp: return -inf;
        case reduce_function::average: return std::numeric_limits<long double>::quiet_NaN();
        default: return 0;
    }
}

values values_for(reader& in, reduce_function f) {
    const bool general = in.chance(64);
    switch (f) {
        case reduce_function::argmax:
        case reduce_function::argmin:
        case reduce_function::max:
        case reduce_function::min: return values::ordering;
        case reduce_function::log_sum: return general ? values::positive : values::exact;
        case reduce_function::log_sum_exp: return general ? values::exponent : values::exact;
        case reduce_function::multiply: return general ? values::magnitude : values::product;
        default: return general ? values::general : values::exact;
    }
}

/// Bound on |result − exact| of a floating reduction of n elements whose |x| (or x² for L2 and SUM_SQUARE) sum to
/// `magnitude`: the accumulation's error n·ε·magnitude, the finishing function's own error, one rounding to T.
template <class T>
long double reduce_bound(reduce_function f, std::size_t n, long double magnitude, long double expected) {
    const long double eps = accumulator_epsilon<T>(), slack = static_cast<long double>(n + 16) * eps, size = std::fabs(expected);
    const long double rounding = output_epsilon<T>() * size + smallest<T>();
    switch (f) {
        case reduce_function::max:
        case reduce_function::min: return 0;
        case reduce_function::multiply: return 4 * slack * size + rounding + value_of(std::numeric_limits<T>::min());
        case reduce_function::l2: return (2 * slack + 4 * eps) * size + rounding;
        case reduce_function::log_sum:
            return 2 * slack * magnitude / std::max<long double>(std::exp(expected), 1e-30L) + 4 * eps * (size + 1) + rounding;
        case reduce_function::log_sum_exp: return 2 * slack + 64 * eps * (size + 1) + rounding;
        case reduce_function::average: return 2 * slack * magnitude / static_cast<long double>(std::max<std::size_t>(n, 1)) + rounding;
        default: return 2 * slack * magnitude + rounding;
    }
}

/// One call with input type T and output type U (T for the value functions, an index type for ARGMAX/ARGMIN; the
/// other one now and then, which the library must refuse).
template <class T, class U>
void reduce_case(reader& in, int which, reduce_function f, const executor_choice& exec, expectation e) {
    constexpr bool index_output = tensorops::index_element<U>;
    const bool arg = f == reduce_function::argmax || f == reduce_function::argmin;
    if (arg && !index_output) e.breaks("an index output for ARGMAX and ARGMIN");
    if (!arg && !std::is_same_v<T, U>) e.breaks("an output of the input's type for the value functions");
    const bool floating_only = f == reduce_function::average || f == reduce_function::l2 || f == reduce_function::log_sum ||
                               f == reduce_function::log_sum_exp;
    if (floating_only && !floating<T>) e.breaks("a floating input for AVERAGE, L2, LOG_SUM and LOG_SUM_EXP");
    const auto direction = static_cast<tensorops::axis_direction>(which == 0 ? 0 : in.chance(3) ? 2 + in.below(2) : in.below(2));
    if (static_cast<int>(direction) > 1) e.breaks("direction an axis_direction");

    memory m;
    placed x{}, y{};
    x.element_bytes = sizeof(T);
    y.element_bytes = sizeof(U);
    x.rank = choose_rank(in, in.chance(4) ? 0 : 1, 4);
    choose_sizes(in, x, 0, x.rank, choose_budget(in));
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < x.rank; ++d)
        if (in.chance(100)) axes.push_back(d);
    if (axes.empty() && x.rank > 0 && !in.chance(24)) axes.push_back(in.below(static_cast<std::uint32_t>(x.rank)));
    for (std::size_t i = axes.size(); i > 1; --i) std::swap(axes[i - 1], axes[in.below(static_cast<std::uint32_t>(i))]);
    if (in.chance(5)) axes.push_back(axes.empty() || in.chance(128) ? x.rank + in.below(2) : axes[in.below(static_cast<std::uint32_t>(axes.size()))]);
    std::array<bool, 8> reduced{};
    std::size_t n = 1;
    for (std::size_t axis : axes) {
        if (axis >= x.rank) {
            e.breaks("every axis below the rank");
        } else if (reduced[axis]) {
            e.breaks("no axis twice");
        } else {
            reduced[axis] = true;
            n *= x.sizes[axis];
        }
    }
    y.rank = x.rank;
    for (std::size_t d = 0; d < x.rank; ++d) y.sizes[d] = reduced[d] ? 1 : x.sizes[d];
    if (x.rank > 0 && in.chance(4)) {
        y.sizes[in.below(static_cast<std::uint32_t>(y.rank))] += 1;
        e.breaks("output sizes those of the input with 1 on the reduced axes");
    }
    if (arg && n == 0 && y.count() > 0) e.breaks("no empty group for ARGMAX and ARGMIN");

    choose_strides(in, x, false);
    choose_strides(in, y, true);
    const std::uint32_t arrangement = in.below(8);  // 0-4 apart, 5 interleaved (equal element sizes), 6-7 overlapping
    const bool interleaved = arrangement == 5 && sizeof(T) == sizeof(U);
    if (interleaved) {
        interleave(in, m, x, y);
    } else if (arrangement >= 6) {
        m.place_alone(in, x);
        m.place_over(in, y, x);
    } else {
        m.place_alone(in, x);
        m.place_alone(in, y);
    }
    if (!unique(y)) e.breaks("an output element per coordinate");
    expect_apart(e, relate(y, x, interleaved), "output apart from the input");
    placed* const views[] = {&x, &y};
    m.allocate(in, views);
    const values kind = values_for(in, f);
    fill<T>(in, m, x, kind);
    const ref::dense<T> input = m.read<T>(x);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> source = m.view<T>(x);
        const tensorops::tensor_view<U> target = m.view<U>(y);
        const std::span<const std::size_t> list(axes);
        if constexpr (index_output) {
            if (which == 1) {
                if (executor == nullptr) tensorops::argmax(source, target, list, direction);
                else tensorops::argmax(*executor, source, target, list, direction);
                return;
            }
            if (which == 2) {
                if (executor == nullptr) tensorops::argmin(source, target, list, direction);
                else tensorops::argmin(*executor, source, target, list, direction);
                return;
            }
        }
        if (executor == nullptr) tensorops::reduce(source, target, f, list);
        else tensorops::reduce(*executor, source, target, f, list);
    };
    if (!run(call, e, m, exec)) return;
    if (arg) {
        const auto expected = ref::arg_reduce(input, axes, f == reduce_function::argmax, direction == tensorops::axis_direction::decreasing);
        check_results<U>(m, y, expected, [](std::size_t) { return 0.0L; });
    } else if constexpr (std::is_same_v<T, U>) {
        if (n == 0) {
            const auto expected = ref::dense<long double>::filled(y.size_vector(), empty_group_value<T>(f));
            check_results<T>(m, y, expected, [](std::size_t) { return 0.0L; });
        } else {
            const auto expected = ref::reduce(input, axes, static_cast<ref::reduce_operation>(f));
            const bool exact = (exact_class(kind) && !floating_only) || !floating<T>;
            ref::dense<long double> magnitudes;
            if (!exact) {
                magnitudes.sizes = input.sizes;
                for (const T& v : input.values) magnitudes.values.push_back(std::fabs(value_of(v)));
                const bool squares = f == reduce_function::l2 || f == reduce_function::sum_square;
                magnitudes = ref::reduce(magnitudes, axes, squares ? ref::reduce_operation::sum_square : ref::reduce_operation::sum);
            }
            check_results<T>(m, y, expected, [&](std::size_t i) {
                return exact ? 0.0L : reduce_bound<T>(f, n, magnitudes.values[i], static_cast<long double>(expected.values[i]));
            });
        }
    }
    same_without_executor<U>(call, m, exec, y);
}

template <class T>
void reduce_for(reader& in, int which, const executor_choice& exec) {
    expectation e;
    auto f = which == 1 ? reduce_function::argmax : which == 2 ? reduce_function::argmin : static_cast<reduce_function>(in.below(12));
    if (which == 0 && in.chance(3)) {
        f = static_cast<reduce_function>(12 + in.below(4));
        e.breaks("function one of the twelve");
    }
    const bool arg = f == reduce_function::argmax || f == reduce_function::argmin;
    const bool other_type = which == 0 && in.chance(8);
    if (arg != other_type) visit_index(in.below(4), [&]<class I>(std::type_identity<I>) { reduce_case<T, I>(in, which, f, exec, e); });
    else reduce_case<T, T>(in, which, f, exec, e);
}

}  // namespace

void fuzz_reduce(reader& in, element_type type, int which, const executor_choice& exec) {
    current = which == 0 ? operation::reduce : which == 1 ? operation::argmax : operation::argmin;
    visit(type, [&]<class T>(std::type_identity<T>) { reduce_for<T>(in, which, exec); });
}

}  // namespace tensorops_fuzz::typed
