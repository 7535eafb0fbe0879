// The dml fuzzer's reduce, argmax and argmin (see fuzzer.cpp).
#include "fuzzing.hpp"

namespace tensorops_fuzz {

void fuzz_reduce(reader& in, tensor_data_type type, int which) {  // which: 0 reduce, 1 argmax, 2 argmin
    fuzz_tensor x, y;
    const std::uint32_t rank = 1 + in.below(8);
    random_sizes(in, x.sizes, rank);
    std::uint32_t axes[10] = {};
    std::uint32_t axis_count = 0;
    bool reduced[8] = {};
    for (std::uint32_t d = 0; d < rank; ++d)
        if (in.chance(100)) axes[axis_count++] = d, reduced[d] = true;
    if (axis_count == 0) axes[axis_count++] = in.below(rank), reduced[axes[0]] = true;
    for (std::uint32_t i = axis_count; i > 1; --i) std::swap(axes[i - 1], axes[in.below(i)]);
    if (in.chance(6)) axes[in.below(axis_count)] = in.below(10);       // out of range or duplicate
    if (in.chance(4)) axis_count = in.chance(128) ? 0 : axis_count + 1;  // axes[] has room for it
    if (axis_count > 0 && axes[axis_count - 1] > 100) axes[axis_count - 1] = 0;
    for (std::uint32_t d = 0; d < rank; ++d) y.sizes[d] = reduced[d] ? 1 : x.sizes[d];
    if (in.chance(4)) y.sizes[in.below(rank)] += 1;
    auto function = which == 0 ? static_cast<reduce_function>(in.below(in.chance(4) ? 16 : 12)) : reduce_function::argmax;
    const bool arg = which != 0 || function == reduce_function::argmax || function == reduce_function::argmin;
    constexpr tensor_data_type index_types[] = {tensor_data_type::int64, tensor_data_type::int32, tensor_data_type::uint64, tensor_data_type::uint32};
    const tensor_data_type out_type = arg ? index_types[in.below(4)] : type;
    describe(in, x, type, rank, false);
    describe(in, y, in.chance(8) ? static_cast<tensor_data_type>(1 + in.below(11)) : out_type, rank, true);
    const auto direction = static_cast<axis_direction>(in.chance(4) ? in.below(4) : in.below(2));
    const dml::reduce_operator_desc reduce_desc{function, &x.desc, &y.desc, axis_count, axes};
    const dml::argmax_operator_desc argmax_desc{&x.desc, &y.desc, axis_count, axes, direction};
    const dml::argmin_operator_desc argmin_desc{&x.desc, &y.desc, axis_count, axes, direction};
    if (in.chance(8)) y.desc.data_type = type;  // occasionally a value output for argmax: rejected
    const bool valid = which == 0 ? accepted(reduce_desc) : which == 1 ? accepted(argmax_desc) : accepted(argmin_desc);
    if (!buffers_ready({&x, &y}) || (valid && !small_enough({&x, &y}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(x.desc.data_type) ? x.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        const bool order_only = function == reduce_function::max || function == reduce_function::min || arg;
        fill_values<T>(in, x, function == reduce_function::multiply ? value_class::product : order_only ? value_class::ordering : value_class::general);
        const std::vector<std::uint8_t> before = snapshot(y);
        void* output = in.chance(8) ? static_cast<void*>(x.memory.data) : y.memory.data;  // same buffer: an overlap, rejected
        const bool ran = run(
            [&] {
                if (which == 0) dml::execute(current_executor, reduce_desc, x.memory.data, output);
                else if (which == 1) dml::execute(current_executor, argmax_desc, x.memory.data, output);
                else dml::execute(current_executor, argmin_desc, x.memory.data, output);
            },
            y, before);
        if (!ran) return;
        if (!valid || output != y.memory.data) fail("execute ran a call that validate rejects, or an output overlapping its input");
        const std::vector<std::size_t> axis_list(axes, axes + axis_count);
        const auto input = read<T>(x);
        const bool maximum = which == 1 || (which == 0 && function == reduce_function::argmax);
        if (arg) {
            const bool last = which != 0 && direction == axis_direction::decreasing;
            const auto expected = ref::arg_reduce(input, axis_list, maximum, last);
            dml::visit_index_type(y.desc.data_type, [&]<class I>(std::type_identity<I>) {
                const auto got = read<I>(y);
                for (std::size_t i = 0; i < got.values.size(); ++i)
                    if (static_cast<std::int64_t>(got.values[i]) != expected.values[i]) fail("argmax/argmin differs from the reference");
                require_untouched_outside(y, before, sizeof(I));
            });
            return;
        }
        const auto expected = ref::reduce(input, axis_list, static_cast<ref::reduce_operation>(function));
        const bool exact = function != reduce_function::average && function != reduce_function::l2 && function != reduce_function::log_sum &&
                           function != reduce_function::log_sum_exp;
        require_close(read<T>(y), expected, exact);
        require_untouched_outside(y, before, sizeof(T));
    });
}

}  // namespace tensorops_fuzz
