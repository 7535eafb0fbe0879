// The typed fuzzer's cumulative sum and product (see fuzzer.cpp): any layout of input and output, in place,
// interleaved with the input, overlapping it; every axis, direction and exclusive flag; broken arguments now and then.
#include "typed_fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz::typed {

namespace {

template <class T>
void scan_case(reader& in, bool product, const executor_choice& exec) {
    memory m;
    placed x{}, y{};
    expectation e;
    tensorops::scan_options options;
    place_scan_views<T>(in, m, x, y, e, options);
    placed* const views[] = {&x, &y};
    m.allocate(in, views);
    const values kind = product ? (in.chance(64) ? values::magnitude : values::product) : (in.chance(64) ? values::general : values::exact);
    fill<T>(in, m, x, kind);
    const ref::dense<T> input = m.read<T>(x);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> source = m.view<T>(x);
        const tensorops::tensor_view<T> target = m.view<T>(y);
        with_executor_or_none(executor, [&](const auto&... on) {
            if (product) tensorops::cumulative_product(on..., source, target, options);
            else tensorops::cumulative_sum(on..., source, target, options);
        });
    };
    if (!run(call, e, m, exec)) return;
    const bool reverse = options.direction == tensorops::axis_direction::decreasing;
    const auto expected = ref::cumulative<T>(input, options.axis, reverse, options.exclusive,
                                             product ? ref::scan_operation::product : ref::scan_operation::sum);
    if (exact_class(kind) || !floating<T>) {
        check_results<T>(m, y, expected, [](std::size_t) { return 0.0L; });
    } else {
        // Error of a sequential float carry over at most n terms: n·ε·(Σ|x| of the prefix) for sums, a relative
        // n·ε for products; then one rounding to T.
        const long double slack = static_cast<long double>(input.sizes[options.axis] + 16) * accumulator_epsilon<T>();
        ref::dense<long double> magnitudes;
        if (!product) {
            magnitudes.sizes = input.sizes;
            for (const T& v : input.values) magnitudes.values.push_back(std::fabs(value_of(v)));
            magnitudes = ref::cumulative<long double>(magnitudes, options.axis, reverse, options.exclusive, ref::scan_operation::sum);
        }
        check_results<T>(m, y, expected, [&](std::size_t i) {
            const long double size = std::fabs(expected.values[i]);
            const long double rounding = output_epsilon<T>() * size + smallest<T>();
            if (product) return 4 * slack * size + rounding + value_of(std::numeric_limits<T>::min());
            return 2 * slack * magnitudes.values[i] + rounding;
        });
    }
    same_without_executor<T>(call, m, exec, y);
}

}  // namespace

void fuzz_scan(reader& in, element_type type, bool product, const executor_choice& exec) {
    current = product ? operation::cumulative_product : operation::cumulative_sum;
    visit(type, [&]<class T>(std::type_identity<T>) { scan_case<T>(in, product, exec); });
}

}  // namespace tensorops_fuzz::typed
