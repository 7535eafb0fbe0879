// The typed fuzzer's scatter-ND (every reduction) and gather-ND (batch dimensions too) (see fuzzer.cpp): any layout
// of every view (broadcast indices and updates, reversed and gapped ones), the output in place, interleaved with the
// input or overlapping any other view, negative and duplicate coordinates, broken arguments now and then.
#include "typed_fuzzing.hpp"
#include "typed_operations.hpp"

namespace tensorops_fuzz::typed {

namespace {

/// Writes the indices (the last dimension holds each tuple's k coordinates; coordinate c indexes input dimension
/// first + c): in range mostly, negative from the end now and then for signed types, rarely out of range. Then reads
/// them back (broadcast layouts keep the last value written) and records a broken rule if a tuple is out of range.
template <class I>
ref::dense<I> fill_indices(reader& in, memory& m, const placed& indices, const placed& input, std::size_t first, std::size_t k, expectation& e) {
    m.write<I>(indices, [&](std::size_t i) {
        const auto extent = static_cast<std::int64_t>(input.sizes[first + i % k]);
        std::int64_t value = extent == 0 ? 0 : static_cast<std::int64_t>(in.below(static_cast<std::uint32_t>(extent)));
        if (std::is_signed_v<I> && in.chance(64)) value -= extent;
        if (in.chance(2)) value = in.chance(128) ? extent + in.below(2) : -extent - 1;
        return static_cast<I>(value);
    });
    ref::dense<I> values = m.read<I>(indices);
    for (std::size_t i = 0; i < values.values.size(); ++i) {
        const auto extent = static_cast<std::int64_t>(input.sizes[first + i % k]);
        const I value = values.values[i];
        const bool in_range = std::is_signed_v<I> ? static_cast<std::int64_t>(value) >= -extent && static_cast<std::int64_t>(value) < extent
                                                  : static_cast<std::uint64_t>(value) < static_cast<std::uint64_t>(extent);
        if (!in_range) e.breaks("every coordinate in [-size, size) (signed) or [0, size)");
    }
    return values;
}

/// Besides equal values, copies must be bit for bit the elements they copy (NaN payloads, the sign of zero).
template <class T>
void check_bits(memory& m, const placed& output, const ref::dense<T>& expected) {
    const ref::dense<T> got = m.read<T>(output);
    for (std::size_t i = 0; i < got.values.size(); ++i)
        if (std::memcmp(&got.values[i], &expected.values[i], sizeof(T)) != 0) fail("a copied element differs in its bits from the reference");
}

/// The output's arrangement: apart from every other view, in place (scatter), interleaved with the input, or over one
/// of the other views at random.
void arrange_output(reader& in, memory& m, placed& output, placed& input, const std::span<placed* const> others, bool can_be_in_place,
                    bool& interleaved) {
    const std::uint32_t arrangement = in.below(8);  // 0-3 apart, 4-5 in place, 6 interleaved, 7 over another view
    interleaved = arrangement == 6 || (arrangement >= 4 && arrangement <= 5 && !can_be_in_place);
    if (interleaved) interleave(in, m, input, output);
    else m.place_alone(in, input);
    for (placed* v : others) m.place_alone(in, *v);
    if (interleaved) return;
    if (arrangement >= 4 && arrangement <= 5) {
        output = input;
    } else if (arrangement == 7) {
        const std::uint32_t pick = in.below(static_cast<std::uint32_t>(others.size() + 1));
        m.place_over(in, output, pick == others.size() ? input : *others[pick]);
    } else {
        m.place_alone(in, output);
    }
}

template <class T, class I>
void scatter_case(reader& in, const executor_choice& exec) {
    expectation e;
    memory m;
    placed input{}, indices{}, updates{}, output{};
    input.element_bytes = updates.element_bytes = output.element_bytes = sizeof(T);
    indices.element_bytes = sizeof(I);
    input.rank = in.chance(3) ? 0 : choose_rank(in, 1, 4);
    if (input.rank == 0) e.breaks("input of rank 1 or more");
    choose_sizes(in, input, 0, input.rank, choose_budget(in));
    std::size_t k = input.rank == 0 ? 1 : 1 + in.below(static_cast<std::uint32_t>(input.rank));
    if (in.chance(3)) k = in.chance(128) ? 0 : input.rank + 1;
    if (k == 0 || k > input.rank) e.breaks("k in [1, rank of input]");
    const std::size_t tuple_rank = choose_rank(in, 0, 2);
    indices.rank = tuple_rank + 1;
    choose_sizes(in, indices, 0, tuple_rank, 16);
    indices.sizes[tuple_rank] = k;
    updates.rank = tuple_rank;
    for (std::size_t d = 0; d < tuple_rank; ++d) updates.sizes[d] = indices.sizes[d];
    for (std::size_t d = k; d < input.rank; ++d) updates.sizes[updates.rank++] = input.sizes[d];
    if (updates.rank > 0 && in.chance(4)) {
        updates.sizes[in.below(static_cast<std::uint32_t>(updates.rank))] += 1;
        e.breaks("updates sizes indices.shape[:-1] ++ input.shape[k:]");
    }
    output.rank = input.rank;
    output.sizes = input.sizes;
    const bool resized = output.rank > 0 && in.chance(4);
    if (resized) {
        output.sizes[in.below(static_cast<std::uint32_t>(output.rank))] += 1;
        e.breaks("output sizes equal to the input's");
    }
    auto reduction = static_cast<tensorops::scatter_reduction>(in.chance(128) ? 0 : in.below(5));
    if (in.chance(3)) {
        reduction = static_cast<tensorops::scatter_reduction>(5 + in.below(3));
        e.breaks("reduction one of none, add, multiply, max, min");
    }
    for (placed* v : {&input, &indices, &updates}) choose_strides(in, *v, false);
    choose_strides(in, output, true);
    bool interleaved = false;
    placed* const others[] = {&indices, &updates};
    arrange_output(in, m, output, input, others, !resized, interleaved);
    if (!unique(output)) e.breaks("an output element per coordinate");
    expect_in_place_or_apart(e, relate(output, input, interleaved), "output exactly the input or apart from it");
    expect_apart(e, relate(output, indices, false), "output apart from the indices");
    expect_apart(e, relate(output, updates, false), "output apart from the updates");
    placed* const views[] = {&input, &indices, &updates, &output};
    m.allocate(in, views);
    const values kind = reduction == tensorops::scatter_reduction::add        ? values::exact
                        : reduction == tensorops::scatter_reduction::multiply ? values::product
                        : in.chance(64)                                       ? values::general
                                                                              : values::ordering;
    fill<T>(in, m, input, kind);
    fill<T>(in, m, updates, kind);
    const ref::dense<I> index_values = fill_indices<I>(in, m, indices, input, 0, std::max<std::size_t>(k, 1), e);
    const ref::dense<T> source = m.read<T>(input), update_values = m.read<T>(updates);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> x = m.view<T>(input), u = m.view<T>(updates);
        const tensorops::tensor_view<const I> at = m.view<I>(indices);
        const tensorops::tensor_view<T> y = m.view<T>(output);
        if (executor == nullptr) tensorops::scatter_nd(x, at, u, y, reduction);
        else tensorops::scatter_nd(*executor, x, at, u, y, reduction);
    };
    if (!run(call, e, m, exec)) return;
    const auto expected = ref::scatter_nd(source, index_values, update_values, static_cast<ref::scatter_mode>(reduction));
    check_results<T>(m, output, expected, [](std::size_t) { return 0.0L; });
    if (reduction == tensorops::scatter_reduction::none) check_bits(m, output, expected);
    same_without_executor<T>(call, m, exec, output);
}

template <class T, class I>
void gather_case(reader& in, const executor_choice& exec) {
    expectation e;
    memory m;
    placed input{}, indices{}, output{};
    input.element_bytes = output.element_bytes = sizeof(T);
    indices.element_bytes = sizeof(I);
    input.rank = in.chance(3) ? 0 : choose_rank(in, 1, 4);
    if (input.rank == 0) e.breaks("input of rank 1 or more");
    choose_sizes(in, input, 0, input.rank, choose_budget(in));
    std::size_t batch = in.chance(192) || input.rank == 0 ? 0 : in.below(static_cast<std::uint32_t>(input.rank));
    if (in.chance(3)) batch = input.rank + in.below(2);
    const std::size_t room = input.rank > batch ? input.rank - batch : 0;
    std::size_t k = room == 0 ? 1 : 1 + in.below(static_cast<std::uint32_t>(room));
    if (in.chance(3)) k = in.chance(128) ? 0 : room + 1;
    if (batch >= input.rank) e.breaks("batch_dims below the rank of input");
    if (k == 0 || k > room) e.breaks("k in [1, rank of input - batch_dims]");
    const std::size_t shared = std::min(batch, input.rank);
    const std::size_t tuple_rank = choose_rank(in, 0, 2);
    indices.rank = shared + tuple_rank + 1;
    for (std::size_t d = 0; d < shared; ++d) indices.sizes[d] = input.sizes[d];
    choose_sizes(in, indices, shared, tuple_rank, 16);
    indices.sizes[indices.rank - 1] = k;
    if (batch >= indices.rank) e.breaks("batch_dims below the rank of indices");
    if (shared > 0 && in.chance(4)) {
        indices.sizes[in.below(static_cast<std::uint32_t>(shared))] += 1;
        e.breaks("the batch sizes of indices those of input");
    }
    output.rank = indices.rank - 1;
    for (std::size_t d = 0; d < output.rank; ++d) output.sizes[d] = indices.sizes[d];
    for (std::size_t d = shared + k; d < input.rank; ++d) output.sizes[output.rank++] = input.sizes[d];
    if (output.rank > 0 && in.chance(4)) {
        output.sizes[in.below(static_cast<std::uint32_t>(output.rank))] += 1;
        e.breaks("output sizes indices.shape[:-1] ++ input.shape[batch_dims+k:]");
    }
    for (placed* v : {&input, &indices}) choose_strides(in, *v, false);
    choose_strides(in, output, true);
    bool interleaved = false;
    placed* const others[] = {&indices};
    arrange_output(in, m, output, input, others, false, interleaved);
    if (!unique(output)) e.breaks("an output element per coordinate");
    expect_apart(e, relate(output, input, interleaved), "output apart from the input");
    expect_apart(e, relate(output, indices, false), "output apart from the indices");
    placed* const views[] = {&input, &indices, &output};
    m.allocate(in, views);
    fill<T>(in, m, input, in.chance(64) ? values::general : values::ordering);
    const ref::dense<I> index_values = fill_indices<I>(in, m, indices, input, shared, std::max<std::size_t>(k, 1), e);
    const ref::dense<T> source = m.read<T>(input);

    const auto call = [&](const tensorops::executor_ref* executor) {
        const tensorops::tensor_view<const T> x = m.view<T>(input);
        const tensorops::tensor_view<const I> at = m.view<I>(indices);
        const tensorops::tensor_view<T> y = m.view<T>(output);
        if (executor == nullptr) tensorops::gather_nd(x, at, y, batch);
        else tensorops::gather_nd(*executor, x, at, y, batch);
    };
    if (!run(call, e, m, exec)) return;
    const auto expected = ref::gather_nd(source, index_values, batch);
    check_results<T>(m, output, expected, [](std::size_t) { return 0.0L; });
    check_bits(m, output, expected);
    same_without_executor<T>(call, m, exec, output);
}

}  // namespace

void fuzz_tuples(reader& in, element_type type, bool gather, const executor_choice& exec) {
    current = gather ? operation::gather_nd : operation::scatter_nd;
    const std::uint32_t index_type = in.below(4);
    visit(type, [&]<class T>(std::type_identity<T>) {
        visit_index(index_type, [&]<class I>(std::type_identity<I>) {
            if (gather) gather_case<T, I>(in, exec);
            else scatter_case<T, I>(in, exec);
        });
    });
}

}  // namespace tensorops_fuzz::typed
