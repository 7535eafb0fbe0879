// The dml fuzzer's cumulative summation and product (see fuzzer.cpp).
#include "fuzzing.hpp"

namespace tensorops_fuzz {

void fuzz_cumulative(reader& in, tensor_data_type type, bool product) {
    fuzz_tensor x, y;
    const std::uint32_t rank = 1 + in.below(8);
    random_sizes(in, x.sizes, rank);
    std::copy(x.sizes, x.sizes + 9, y.sizes);
    if (in.chance(4)) y.sizes[in.below(rank)] += 1;
    describe(in, x, type, rank, false);
    const bool in_place = in.chance(48);
    if (in_place) y.desc = x.desc;
    else describe(in, y, in.chance(8) ? static_cast<tensor_data_type>(1 + in.below(11)) : type, rank, true);
    const std::uint32_t axis = in.chance(8) ? in.below(10) : in.below(rank);
    const auto direction = static_cast<axis_direction>(in.chance(4) ? in.below(4) : in.below(2));
    const bool exclusive = in.chance(128);
    fuzz_tensor& out = in_place ? x : y;
    const dml::cumulative_summation_operator_desc sum_desc{&x.desc, &out.desc, axis, direction, exclusive};
    const dml::cumulative_product_operator_desc product_desc{&x.desc, &out.desc, axis, direction, exclusive};
    const bool valid = product ? accepted(product_desc) : accepted(sum_desc);
    if (!buffers_ready({&x, &out}) || (valid && !small_enough({&x, &out}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(x.desc.data_type) ? x.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        fill_values<T>(in, x, product ? value_class::product : value_class::general);
        const std::vector<std::uint8_t> before = snapshot(out);
        std::optional<ref::dense<T>> input;
        if (valid && aligned(x, alignof(T))) input = read<T>(x);  // before the call: in place overwrites it
        const bool ran = run(
            [&] {
                if (product) dml::execute(current_executor, product_desc, x.memory.data, out.memory.data);
                else dml::execute(current_executor, sum_desc, x.memory.data, out.memory.data);
            },
            out, before);
        if (!ran) return;
        if (!valid || !input) fail("execute ran a call that validate rejects, or with a misaligned buffer");
        const auto expected = ref::cumulative<T>(*input, axis, direction == axis_direction::decreasing, exclusive,
                                                 product ? ref::scan_operation::product : ref::scan_operation::sum);
        require_close(read<T>(out), expected, true);
        if (!in_place) require_untouched_outside(out, before, sizeof(T));
    });
}

}  // namespace tensorops_fuzz
