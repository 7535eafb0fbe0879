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
    x.element_bytes = y.element_bytes = sizeof(T);
    x.rank = choose_rank(in, in.chance(4) ? 0 : 1, 4);
    choose_sizes(in, x, 0, x.rank, choose_budget(in));
    expectation e;
    tensorops::scan_options options;
    options.axis = x.rank == 0 || in.chance(4) ? x.rank + in.below(2) : in.below(static_cast<std::uint32_t>(x.rank));
    if (options.axis >= x.rank) e.breaks("options.axis below the rank");
    options.direction = static_cast<tensorops::axis_direction>(in.chance(3) ? 2 + in.below(2) : in.below(2));
    if (static_cast<int>(options.direction) > 1) e.breaks("options.direction an axis_direction");
    options.exclusive = in.chance(128);

    const std::uint32_t arrangement = in.below(8);  // 0-3 apart, 4-5 in place, 6 interleaved, 7 overlapping
    choose_strides(in, x, false);
    y.rank = x.rank;
    y.sizes = x.sizes;
    if (arrangement < 4 || arrangement > 5) {
        if (x.rank > 0 && in.chance(4)) {
            y.sizes[in.below(static_cast<std::uint32_t>(y.rank))] += 1;
            e.breaks("output sizes equal to the input's");
        }
        choose_strides(in, y, true);
    }
    if (arrangement < 4) {
        m.place_alone(in, x);
        m.place_alone(in, y);
    } else if (arrangement < 6) {
        m.place_alone(in, x);
        y = x;
    } else if (arrangement == 6) {
        interleave(in, m, x, y);
    } else {
        m.place_alone(in, x);
        m.place_over(in, y, x);
    }
    if (!unique(y)) e.breaks("an output element per coordinate");
    expect_in_place_or_apart(e, relate(y, x, arrangement == 6), "output exactly the input or apart from it");
    placed* const views[] = {&x, &y};
    m.allocate(in, views);
    const values kind = product ? (in.chance(64) ? values::magnitude : values::product) : (in.chance(64) ? values::general : values::exact);
    fill<T>(in, m, x, kind);
    const ref::dense<T> input = m.read<T>(x);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> source = m.view<T>(x);
        const tensorops::tensor_view<T> target = m.view<T>(y);
        if (executor == nullptr) {
            if (product) tensorops::cumulative_product(source, target, options);
            else tensorops::cumulative_sum(source, target, options);
        } else {
            if (product) tensorops::cumulative_product(*executor, source, target, options);
            else tensorops::cumulative_sum(*executor, source, target, options);
        }
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
