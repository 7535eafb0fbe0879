// tensorops/ops/scatter.hpp — scatter-ND with the ONNX ScatterND-18 reduction modes
// (DML_SCATTER_ND_OPERATOR_DESC; SEMANTICS.md §3, §4).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <iterator>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "../core/element.hpp"
#include "../core/error.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../iter/plan.hpp"
#include "arguments.hpp"
#include "detail/compiled.hpp"
#include "detail/tuples/copy.hpp"
#include "detail/tuples/chunks.hpp"
#include "detail/tuples/validate.hpp"

namespace tensorops {

/// How scatter_nd combines an update with the element it lands on (ONNX ScatterND's `reduction`).
///   none      the update replaces the element (with duplicate tuples, the last one wins)
///   add       element + update         multiply  element · update
///   max       the larger of the two    min       the smaller of the two
/// Updates are applied one by one in row-major order of the index array, so results are reproducible.
enum class scatter_reduction { none, add, multiply, max, min };

namespace detail {

inline std::string_view reduction_name(scatter_reduction reduction) {
    constexpr std::string_view names[] = {"none", "add", "multiply", "max", "min"};
    const auto index = static_cast<std::size_t>(reduction);
    return index < std::size(names) ? names[index] : "?";
}

/// The reduction must exist and the element type must support it.
template <class T>
void require_reduction(std::string_view operation, scatter_reduction reduction) {
    const auto unsupported = [&](std::string_view needs) {
        throw error(operation, "reduction",
                    "'" + std::string(reduction_name(reduction)) + "' needs " + std::string(needs) + "; this element type has none");
    };
    switch (reduction) {
        case scatter_reduction::none: break;
        case scatter_reduction::add:
            if (!additive<T>) unsupported("+ and a zero (the additive concept)");
            break;
        case scatter_reduction::multiply:
            if (!multiplicative<T>) unsupported("* and a one (the multiplicative concept)");
            break;
        case scatter_reduction::max:
        case scatter_reduction::min:
            if (!totally_ordered_element<T>) unsupported("operator< (the totally_ordered_element concept)");
            break;
        default:
            throw error(operation, "reduction",
                        "is " + std::to_string(static_cast<int>(reduction)) + ", not one of none, add, multiply, max, min");
    }
}

/// Ranks and shapes of scatter_nd: input rank r ≥ 1; indices [..., k] with 1 ≤ k ≤ r; output sizes = input
/// sizes; updates sizes = indices.shape[:-1] ++ input.shape[k:].
inline void require_scatter_shapes(std::string_view operation, const layout& input, const layout& indices, const layout& updates,
                                   const layout& output) {
    const std::size_t r = input.rank();
    if (r == 0) throw error(operation, "input", "has rank 0; scatter_nd needs a tensor of rank 1 to 8 to index into");
    if (indices.rank() == 0)
        throw error(operation, "indices", "has rank 0; it needs at least one dimension (the last one holds the coordinates of each tuple)");
    const std::size_t k = indices.sizes.back();
    if (k == 0 || k > r)
        throw error(operation, "indices",
                    "has sizes " + describe(indices.sizes) + ": its last size (coordinates per tuple) is " + std::to_string(k) +
                        " but must be in [1, " + std::to_string(r) + "], the rank of input");
    if (!std::equal(input.sizes.begin(), input.sizes.end(), output.sizes.begin(), output.sizes.end()))
        throw error(operation, "output",
                    "has sizes " + describe(output.sizes) + " but input has sizes " + describe(input.sizes) + "; they must be equal");
    const auto tuple_sizes = indices.sizes.first(indices.rank() - 1), slice_sizes = input.sizes.subspan(k);
    if (!equals_concatenation(updates.sizes, tuple_sizes, slice_sizes))
        throw error(operation, "updates",
                    "has sizes " + describe(updates.sizes) + " but indices sizes " + describe(indices.sizes) + " and input sizes " +
                        describe(input.sizes) + " need " + describe(std::span<const std::size_t>(concatenation(tuple_sizes, slice_sizes))) +
                        " (indices.shape[:-1] ++ input.shape[k:], k = " + std::to_string(k) + ")");
}

/// Applies the updates of every tuple (owner == nullptr) or of the tuples one piece owns (detail/tuples/offsets.hpp,
/// tuple_owner), in row-major order of the index array. `slice` walks one tuple's slice (operand 0 in output,
/// operand 1 in updates). Without a reduction, trivially copyable elements whose slices are single elements or
/// contiguous runs take the fused copy (detail/tuples/fused_copy.hpp); everything else goes chunk by chunk through
/// combine_element / combine_nest, as do the pieces. (Single elements through the chunks' array of offsets are
/// slower: the array's stores queue in the store buffer behind the random stores.)
/// The fused copy hints its slices simd::tuples_ahead tuples on (see move_slices), the chunks one chunk on
/// (for_each_tuple_chunk).
template <combine Op, class T>
void scatter_tuples(const tuple_plan& plan, const tuple_source& source, const tuple_owner* owner, const T* updates, T* output,
                    const iter::loop_nest<2>& slice) {
    if constexpr (Op == combine::assign && std::is_trivially_copyable_v<T>) {
        if (owner == nullptr && (slice.rank == 0 || slice_is_one_run(slice))) {  // the fused copy
            source.scatter_copy(source.indices, plan, reinterpret_cast<std::byte*>(output + slice.offsets[0]),
                                reinterpret_cast<const std::byte*>(updates + slice.offsets[1]), sizeof(T), run_length(slice) * sizeof(T));
            return;
        }
    }
    // Each chunk's slices are hinted (for writing) while the chunk before is applied: the start of a run, or the
    // first element of any other slice.
    const std::size_t hinted_bytes = slice_is_one_run(slice) ? run_length(slice) * sizeof(T) : sizeof(T);
    const auto walk = [&](const auto& kernel) {
        const auto* hinted = output + slice.offsets[0];
        if (owner != nullptr)
            for_each_owned_tuple_chunk(plan, source, *owner, with_hints(listing_consumer_of(kernel), hinted, sizeof(T), hinted_bytes, true));
        else
            for_each_tuple_chunk(plan, source, with_hints(consumer_of(kernel), hinted, sizeof(T), hinted_bytes, true));
    };
    if (slice.rank == 0) {  // one element per tuple (k = rank, or trailing sizes of 1)
        walk([&](const std::ptrdiff_t* positions, const auto& data_at, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) combine_element<Op>(output[positions[i]], updates[data_at(i)]);
        });
        return;
    }
    if (slice_is_one_run(slice)) {  // one contiguous run per tuple: its combine loop, without the nest's odometer
        T* const first_output = output + slice.offsets[0];
        const T* const first_update = updates + slice.offsets[1];
        const std::size_t length = slice.sizes[0];
        walk([&](const std::ptrdiff_t* positions, const auto& data_at, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) combine_run<Op>(first_output + positions[i], 1, first_update + data_at(i), 1, length);
        });
        return;
    }
    walk([&](const std::ptrdiff_t* positions, const auto& data_at, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) combine_nest<Op>(output + positions[i], updates + data_at(i), slice);
    });
}

/// How many pieces the updates of a scatter are applied in, and by which coordinate they are told apart (see
/// tuple_owner): the coordinate with the largest extent, cut into at most one range per thread of the executor —
/// every piece reads all the indices, so more pieces than threads would only read them more often. 1 (the
/// calling thread applies every tuple) on a sequential executor, for work below two of the executor's pieces,
/// or when no coordinate has two values.
struct update_split {
    std::size_t coordinate = 0;
    std::size_t pieces = 1;
    std::size_t extent = 0;
    [[nodiscard]] tuple_owner owner(std::size_t piece) const noexcept {
        return {coordinate, piece * extent / pieces, (piece + 1) * extent / pieces};
    }
};

[[nodiscard]] inline update_split split_updates(const executor_ref& exec, const tuple_plan& plan, std::size_t index_bytes,
                                                std::size_t slice_bytes) {
    update_split split;
    for (std::size_t c = 0; c < plan.k; ++c) {
        if (plan.extents[c] <= split.extent) continue;
        split.extent = plan.extents[c];
        split.coordinate = c;
    }
    const std::size_t traffic = plan.count * (plan.k * index_bytes + 2 * slice_bytes);
    if (exec.concurrency() > 1 && traffic >= 2 * exec.min_piece_bytes()) split.pieces = std::min(exec.concurrency(), split.extent);
    split.pieces = std::max<std::size_t>(split.pieces, 1);
    return split;
}

/// Everything after the checks: copy (unless in place), then apply the tuples with the reduction's kernel — on the
/// executor's threads in pieces that own disjoint sets of output elements (update_split), each applying its tuples
/// in row-major order: the result is the sequential one, bit for bit, duplicates and reductions included.
template <class T>
void scatter_validated(const executor_ref& exec, const tuple_plan& plan, const tuple_source& source, const tensor_view<const T>& input,
                       const tensor_view<const T>& updates, const tensor_view<T>& output, bool in_place, scatter_reduction reduction) {
    if (!in_place) copy_view(exec, input, output);
    if (plan.count == 0 || updates.empty()) return;
    const std::size_t tuple_rank = updates.rank() - (input.rank() - plan.k);  // updates = tuple dimensions ++ slice
    const auto slice = plan_slice(input.sizes().subspan(plan.k), layout_of(output), plan.k, layout_of(updates), tuple_rank);
    const auto apply = [&](const tuple_owner* owner) {
        switch (reduction) {
            case scatter_reduction::none: scatter_tuples<combine::assign>(plan, source, owner, updates.data(), output.data(), slice); break;
            case scatter_reduction::add:
                if constexpr (additive<T>) scatter_tuples<combine::add>(plan, source, owner, updates.data(), output.data(), slice);
                break;
            case scatter_reduction::multiply:
                if constexpr (multiplicative<T>) scatter_tuples<combine::multiply>(plan, source, owner, updates.data(), output.data(), slice);
                break;
            case scatter_reduction::max:
                if constexpr (totally_ordered_element<T>) scatter_tuples<combine::max>(plan, source, owner, updates.data(), output.data(), slice);
                break;
            case scatter_reduction::min:
                if constexpr (totally_ordered_element<T>) scatter_tuples<combine::min>(plan, source, owner, updates.data(), output.data(), slice);
                break;
        }
    };
    const update_split split = split_updates(exec, plan, source.index_bytes, slice.element_count() * sizeof(T));
    if (split.pieces <= 1) {
        apply(nullptr);
        return;
    }
    exec.parallel_for(split.pieces, [&](std::size_t piece) {
        const tuple_owner owner = split.owner(piece);
        apply(&owner);
    });
}

/// The checks of scatter_nd, in order, then the work. Only this glue depends on both T and I: the shape checks
/// and the planner on neither, the validation on I only, the kernels on T only.
template <class T, class I>
void scatter(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
             const tensor_view<const T>& updates, const tensor_view<T>& output, scatter_reduction reduction) {
    require_reduction<T>(operation, reduction);
    require_scatter_shapes(operation, layout_of(input), layout_of(indices), layout_of(updates), layout_of(output));
    require_unique(operation, "output", output);
    const bool in_place = require_exact_alias_or_disjoint(operation, "output", output, "input", input);
    require_disjoint(operation, "output", output, "indices", indices);
    require_disjoint(operation, "output", output, "updates", updates);
    const tuple_plan plan = plan_tuples(layout_of(indices), layout_of(updates), layout_of(output), 0);
    validate_tuples(exec, operation, indices, plan, "input");  // every tuple, before anything is written
    scatter_validated(exec, plan, make_tuple_source(indices.data()), input, updates, output, in_place, reduction);
}

/// scatter<T, I> through the compiled library (ops/detail/compiled.hpp): declared here, defined in src/routes.hpp.
template <class T, class I>
struct compiled_scatter {
    static void run(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
                    const tensor_view<const T>& updates, const tensor_view<T>& output, scatter_reduction reduction);
};

/// scatter, through the compiled library where it holds T's kernels (compiled_element).
template <class T, class I>
void scatter_routed(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
                    const tensor_view<const T>& updates, const tensor_view<T>& output, scatter_reduction reduction) {
    if constexpr (compiled_element<T>) compiled_scatter<T, I>::run(exec, operation, input, indices, updates, output, reduction);
    else scatter<T, I>(exec, operation, input, indices, updates, output, reduction);
}

}  // namespace detail

/// Scatter-ND: output = input, then for every index tuple p, in row-major order of the index array,
///   output[indices[p, 0], …, indices[p, k−1], j…] ∘= updates[p, j…]   for every trailing index j…,
/// where ∘ is the reduction (`none`: replace). Ranks: input (and output) rank r, indices [..., k] with
/// 1 ≤ k ≤ r, updates sizes = indices.shape[:-1] ++ input.shape[k:]. Any strides for all four views (inputs
/// may broadcast with stride 0; negative strides are fine).
///
/// Indices: int32, int64, uint32 or uint64; signed coordinates may count from the end (−1 is the last index,
/// valid range [−size, size−1]). **Every tuple is validated before anything is written**: one coordinate out
/// of range throws tensorops::error naming the first such tuple (row-major), its position in the index array,
/// its value and the valid range, and leaves the output untouched — in place too. Nothing outside the output
/// is ever written.
/// Duplicates: tuples are applied one by one in row-major order of the index array, so with `none` the last
/// duplicate wins and reductions combine in that order: results are the same on every run.
/// Reductions: add and multiply wrap for integers (computed in the unsigned type: no undefined behaviour);
/// float16 and bfloat16 add and multiply in float and round once per update (so a long chain of duplicate float16
/// adds rounds at every step: 2048 + 1 + 1 stays 2048, bfloat16's 256 + 1 + 1 stays 256); max and min return NaN when the element or an update is NaN
/// (SEMANTICS.md §4; which of ±0 wins a tie is unspecified). Built-in types: every reduction; user types:
/// `none` for any `element` (memcpy for trivially copyable types, assignment otherwise), add for `additive`,
/// multiply for `multiplicative`, max/min for `totally_ordered_element` (with its own + * <).
/// Aliasing: `output` may be exactly `input` (same data, sizes and strides: in place, the copy is skipped);
/// any other overlap with input, and any overlap with indices or updates, is an error.
/// Cost: no allocation. Indices are read twice — a validation pass, then the pass that computes each offset and
/// applies the update (a plain copy does both in one loop; reductions compute offsets in chunks of 32 on the
/// stack) — and updates once; contiguous slices are copied as blocks (simd::copy_bytes: register moves inlined up to
/// 2 KiB, memcpy past that) or combined with vector loops.
/// Errors (tensorops::error, before anything is written), by argument: `reduction` out of range or not
/// supported by the element type; `input` of rank 0; `indices` of rank 0, k outside [1, r], or a coordinate out
/// of range; `output` sizes differ from input's, layout not unique, overlaps; `updates` sizes wrong.
/// Empty tensors are validated like any other; nothing is written where there is nothing to write.
/// Failures: an exception from a user type's operations (copy, +, *, <) or from the executor propagates unchanged
/// once the running pieces end; the output's contents are then unspecified (in place: the input's too), nothing
/// outside the output is written, nothing leaks, and the executor stays usable (exec/executor.hpp).
template <element T, index_element I>
void scatter_nd(tensor_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
                tensor_view<const std::type_identity_t<T>> updates, tensor_view<T> output, scatter_reduction reduction) {
    detail::scatter_routed<T, I>(sequential, "scatter_nd", input, indices, updates, output, reduction);
}

/// scatter_nd without a reduction: updates replace the elements they land on, the last duplicate winning.
template <element T, index_element I>
void scatter_nd(tensor_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
                tensor_view<const std::type_identity_t<T>> updates, tensor_view<T> output) {
    detail::scatter_routed<T, I>(sequential, "scatter_nd", input, indices, updates, output, scatter_reduction::none);
}

/// scatter_nd with a mutable view of the indices (they are only read).
template <element T, index_element I>
void scatter_nd(tensor_view<const std::type_identity_t<T>> input, tensor_view<I> indices, tensor_view<const std::type_identity_t<T>> updates,
                tensor_view<T> output, scatter_reduction reduction = scatter_reduction::none) {
    detail::scatter_routed<T, I>(sequential, "scatter_nd", input, tensor_view<const I>(indices), updates, output, reduction);
}

/// scatter_nd on an executor (exec/executor.hpp): the validation pass, the input → output copy and the updates
/// run in pieces on its threads. The updates are cut by the values of one coordinate (the one indexing the
/// largest dimension), one range per thread: every piece reads all the tuples and applies, in row-major order of
/// the index array, those whose coordinate falls in its range — so each element receives the same updates in the
/// same order as sequentially (duplicates resolve alike, reductions combine alike) whether or not the tuples are
/// unique, and nothing is sorted or allocated. The result and any error are the same as sequentially, bit for bit.
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void scatter_nd(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
                tensor_view<const std::type_identity_t<T>> updates, tensor_view<T> output, scatter_reduction reduction = scatter_reduction::none) {
    detail::scatter_routed<T, I>(exec, "scatter_nd", input, indices, updates, output, reduction);
}
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void scatter_nd(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<I> indices,
                tensor_view<const std::type_identity_t<T>> updates, tensor_view<T> output, scatter_reduction reduction = scatter_reduction::none) {
    detail::scatter_routed<T, I>(exec, "scatter_nd", input, tensor_view<const I>(indices), updates, output, reduction);
}

}  // namespace tensorops
