// The dml fuzzer's scatter-ND (see fuzzer.cpp).
#include "fuzzing.hpp"

namespace tensorops_fuzz {

void fuzz_scatter(reader& in, tensor_data_type type) {
    fuzz_tensor input, indices, updates, output;
    const std::uint32_t rank = 1 + in.below(6);
    std::uint32_t m = 1 + in.below(rank), q = 1 + in.below(rank);
    const std::uint32_t m0 = m, k = 1 + in.below(m);
    while ((q - 1) + (m - k) > rank) --q;
    const std::uint32_t u = (q - 1) + (m - k);
    for (std::uint32_t d = 0; d < rank; ++d) input.sizes[d] = indices.sizes[d] = updates.sizes[d] = 1;
    for (std::uint32_t d = rank - m; d < rank; ++d) input.sizes[d] = 1 + in.below(5);
    for (std::uint32_t d = rank - q; d + 1 < rank; ++d) indices.sizes[d] = 1 + in.below(4);
    indices.sizes[rank - 1] = k;
    std::uint32_t position = rank - u;
    for (std::uint32_t d = rank - q; d + 1 < rank; ++d) updates.sizes[position++] = indices.sizes[d];
    for (std::uint32_t d = rank - m + k; d < rank; ++d) updates.sizes[position++] = input.sizes[d];
    std::copy(input.sizes, input.sizes + 9, output.sizes);
    if (in.chance(6)) updates.sizes[in.below(rank)] += 1;
    if (in.chance(3)) m = in.below(rank + 2);
    if (in.chance(3)) q = in.below(rank + 2);
    constexpr tensor_data_type index_types[] = {tensor_data_type::int64, tensor_data_type::int32, tensor_data_type::uint64, tensor_data_type::uint32};
    describe(in, input, type, rank, false);
    describe(in, indices, in.chance(4) ? static_cast<tensor_data_type>(1 + in.below(11)) : index_types[in.below(4)], rank, false);
    describe(in, updates, in.chance(4) ? static_cast<tensor_data_type>(1 + in.below(11)) : type, rank, false);
    const bool in_place = in.chance(48);
    if (in_place) output.desc = input.desc;
    else describe(in, output, type, rank, true);
    fuzz_tensor& out = in_place ? input : output;
    const dml::scatter_nd_operator_desc desc{&input.desc, &indices.desc, &updates.desc, &out.desc, m, q};
    const bool valid = accepted(desc);
    if (!buffers_ready({&input, &indices, &updates, &out}) || (valid && !small_enough({&input, &indices, &updates, &out}))) {
        count(validated_only);
        return;
    }
    const tensor_data_type element_type = dml::is_known(input.desc.data_type) ? input.desc.data_type : type;
    dml::visit_data_type(element_type, [&]<class T>(std::type_identity<T>) {
        fill_values<T>(in, input, value_class::ordering);
        fill_values<T>(in, updates, value_class::ordering);
        const auto run_with = [&]<class I>(std::type_identity<I>) {
            fill_indices<I>(in, indices, input.sizes + (rank - m0), rank);
            const std::vector<std::uint8_t> before = snapshot(out);
            std::optional<ref::dense<T>> source;
            if (valid && aligned(input, alignof(T))) source = read<T>(input, rank - m);  // before the call: in place overwrites it
            const bool ran = run([&] { dml::execute(current_executor, desc, input.memory.data, indices.memory.data, updates.memory.data, out.memory.data); }, out, before);
            if (!ran) return;
            if (!valid || !source) fail("execute ran a call that validate rejects, or with a misaligned buffer");
            const std::uint32_t tuple_rank = (q - 1) + (m - k);  // the meaningful rank of updates (valid: m, q in [1, rank])
            const auto expected = ref::scatter_nd(*source, read<I>(indices, rank - q), read<T>(updates, rank - tuple_rank));
            const auto got = read<T>(out, rank - m);
            for (std::size_t i = 0; i < got.values.size(); ++i)
                if (std::memcmp(&got.values[i], &expected.values[i], sizeof(T)) != 0) fail("scatter differs from the reference");
            if (!in_place) require_untouched_outside(out, before, sizeof(T));
        };
        if (dml::types::index.contains(indices.desc.data_type)) dml::visit_index_type(indices.desc.data_type, run_with);
        else run_with(std::type_identity<std::int64_t>{});  // rejected: the indices' type is wrong
    });
}

}  // namespace tensorops_fuzz
