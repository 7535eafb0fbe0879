// tensorops/ops/gather.hpp — gather-ND, the inverse of scatter-ND (DML_GATHER_ND / GATHER_ND1, ONNX GatherND).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
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

namespace detail {

/// Ranks and shapes of gather_nd: input rank r ≥ 1, indices rank q ≥ 1 with last size k; batch_dims b < q and
/// b < r; 1 ≤ k ≤ r − b; indices.shape[:b] = input.shape[:b]; output sizes = indices.shape[:-1] ++ input.shape[b+k:].
inline void require_gather_shapes(std::string_view operation, const layout& input, const layout& indices, const layout& output,
                                  std::size_t batch_dims) {
    const std::size_t r = input.rank(), q = indices.rank();
    if (r == 0) throw error(operation, "input", "has rank 0; gather_nd needs a tensor of rank 1 to 8 to index into");
    if (q == 0)
        throw error(operation, "indices", "has rank 0; it needs at least one dimension (the last one holds the coordinates of each tuple)");
    if (batch_dims >= q || batch_dims >= r)
        throw error(operation, "batch_dims",
                    "is " + std::to_string(batch_dims) + " but must be below the rank of indices (" + std::to_string(q) +
                        ") and the rank of input (" + std::to_string(r) + ")");
    const std::size_t k = indices.sizes.back();
    if (k == 0 || k > r - batch_dims)
        throw error(operation, "indices",
                    "has sizes " + describe(indices.sizes) + ": its last size (coordinates per tuple) is " + std::to_string(k) +
                        " but must be in [1, " + std::to_string(r - batch_dims) + "], the rank of input minus batch_dims");
    for (std::size_t d = 0; d < batch_dims; ++d)
        if (indices.sizes[d] != input.sizes[d])
            throw error(operation, "indices",
                        "has size " + std::to_string(indices.sizes[d]) + " in batch dimension " + std::to_string(d) + " but input has size " +
                            std::to_string(input.sizes[d]) + "; the first batch_dims sizes must be equal");
    const auto tuple_sizes = indices.sizes.first(q - 1), slice_sizes = input.sizes.subspan(batch_dims + k);
    if (!equals_concatenation(output.sizes, tuple_sizes, slice_sizes))
        throw error(operation, "output",
                    "has sizes " + describe(output.sizes) + " but indices sizes " + describe(indices.sizes) + " and input sizes " +
                        describe(input.sizes) + " give " + describe(std::span<const std::size_t>(concatenation(tuple_sizes, slice_sizes))) +
                        " (indices.shape[:-1] ++ input.shape[batch_dims+k:], k = " + std::to_string(k) + ", batch_dims = " +
                        std::to_string(batch_dims) + ")");
}

/// Copies the slice every tuple selects into the output, in row-major order of the index array. `slice` walks
/// one slice (operand 0 in output, operand 1 in input). Slices that are single elements or contiguous runs of a
/// trivially copyable type take the fused copy (detail/tuples/fused_copy.hpp, which hints its slices ahead); others
/// are copied chunk by chunk.
template <class T>
void gather_tuples(const tuple_plan& plan, const tuple_source& source, const T* input, T* output, const iter::loop_nest<2>& slice) {
    if constexpr (std::is_trivially_copyable_v<T>) {
        if (slice.rank == 0 || slice_is_one_run(slice)) {
            source.gather_copy(source.indices, plan, reinterpret_cast<const std::byte*>(input + slice.offsets[1]),
                               reinterpret_cast<std::byte*>(output + slice.offsets[0]), sizeof(T), run_length(slice) * sizeof(T));
            return;
        }
    }
    // Each chunk's slices are hinted while the chunk before is copied: the start of a run, or the first element.
    const std::size_t hinted_bytes = slice_is_one_run(slice) ? run_length(slice) * sizeof(T) : sizeof(T);
    if (slice.rank == 0) {  // one element per tuple
        const auto kernel = [&](const std::ptrdiff_t* positions, const auto& data_at, std::size_t count) {
            for (std::size_t i = 0; i < count; ++i) output[data_at(i)] = input[positions[i]];
        };
        for_each_tuple_chunk(plan, source, with_hints(consumer_of(kernel), input + slice.offsets[1], sizeof(T), hinted_bytes, false));
        return;
    }
    const auto kernel = [&](const std::ptrdiff_t* positions, const auto& data_at, std::size_t count) {
        for (std::size_t i = 0; i < count; ++i) combine_nest<combine::assign>(output + data_at(i), input + positions[i], slice);
    };
    for_each_tuple_chunk(plan, source, with_hints(consumer_of(kernel), input + slice.offsets[1], sizeof(T), hinted_bytes, false));
}

/// The checks of gather_nd, in order, then the work. Only this glue depends on both T and I: the shape checks
/// and the planner on neither, the validation on I only, the kernels on T only.
template <class T, class I>
void gather(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
            const tensor_view<T>& output, std::size_t batch_dims) {
    require_gather_shapes(operation, layout_of(input), layout_of(indices), layout_of(output), batch_dims);
    require_unique(operation, "output", output);
    require_disjoint(operation, "output", output, "input", input);
    require_disjoint(operation, "output", output, "indices", indices);
    const tuple_plan plan = plan_tuples(layout_of(indices), layout_of(output), layout_of(input), batch_dims);
    validate_tuples(exec, operation, indices, plan, "input");  // every tuple, before anything is written
    if (output.empty()) return;
    const std::size_t first_sliced = batch_dims + plan.k;
    const auto slice = plan_slice(input.sizes().subspan(first_sliced), layout_of(output), indices.rank() - 1, layout_of(input), first_sliced);
    // Every tuple writes its own output slice: pieces of tuples are independent.
    const std::size_t bytes_per_tuple = plan.k * sizeof(I) + 2 * slice.element_count() * sizeof(T);
    const tuple_source source = make_tuple_source(indices.data());
    for_each_tuple_piece(exec, plan, bytes_per_tuple,
                         [&](const tuple_plan& piece) { gather_tuples(piece, source, input.data(), output.data(), slice); });
}

/// gather<T, I> through the compiled library (ops/detail/compiled.hpp): declared here, defined in src/routes.hpp.
template <class T, class I>
struct compiled_gather {
    static void run(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
                    const tensor_view<T>& output, std::size_t batch_dims);
};

/// gather, through the compiled library where it holds T's kernels (compiled_element).
template <class T, class I>
void gather_routed(const executor_ref& exec, std::string_view operation, const tensor_view<const T>& input, const tensor_view<const I>& indices,
                    const tensor_view<T>& output, std::size_t batch_dims) {
    if constexpr (compiled_element<T>) compiled_gather<T, I>::run(exec, operation, input, indices, output, batch_dims);
    else gather<T, I>(exec, operation, input, indices, output, batch_dims);
}

}  // namespace detail

/// Gather-ND (ONNX GatherND with batch_dims b): for every index tuple p of `indices` (shape [..., k]),
///   output[p, j…] = input[p[0:b]…, indices[p, 0], …, indices[p, k−1], j…]
/// i.e. output sizes = indices.shape[:-1] ++ input.shape[b+k:], where the first b dimensions of indices and
/// input are shared batch dimensions (equal sizes) and 1 ≤ k ≤ rank(input) − b. With b = 0 it reads back what
/// scatter_nd(…, indices, updates, …) wrote. Any strides for all three views (inputs may broadcast).
///
/// Indices: int32, int64, uint32 or uint64, the same rules as scatter_nd: signed coordinates may count from the
/// end; every tuple is validated before anything is written, and one out of range throws tensorops::error
/// naming the first such tuple (row-major), its position, value and the valid range, with the output untouched.
/// Duplicate tuples simply read the same slice twice. Types: any `element` (contiguous slices of trivially copyable
/// types copied as bytes). Aliasing: the output must not share memory with input or indices.
/// Cost: no allocation; indices read twice (validation, then the pass that computes offsets — in the copy loop
/// itself for contiguous slices, in chunks of 32 on the stack otherwise); contiguous slices are copied as blocks.
/// Errors (tensorops::error, before anything is written), by argument: `input` of rank 0; `indices` of rank 0,
/// k outside [1, r − b], batch sizes differing from input's, or a coordinate out of range; `batch_dims` not below
/// both ranks; `output` sizes wrong, layout not unique, or overlapping input or indices.
/// Failures: an exception from copying a user type or from the executor propagates unchanged once the running pieces
/// end; the output's contents are then unspecified, nothing outside the output is written, nothing leaks, and the
/// executor stays usable (exec/executor.hpp).
/// Executor: the overloads taking an executor first validate and copy pieces of tuples on its threads (each
/// tuple writes its own slice: the result is the same as sequentially, the error names the same tuple).
template <element T, index_element I>
void gather_nd(tensor_view<const std::type_identity_t<T>> input, tensor_view<const I> indices, tensor_view<T> output,
               std::size_t batch_dims = 0) {
    detail::gather_routed<T, I>(sequential, "gather_nd", input, indices, output, batch_dims);
}
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void gather_nd(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<const I> indices, tensor_view<T> output,
               std::size_t batch_dims = 0) {
    detail::gather_routed<T, I>(exec, "gather_nd", input, indices, output, batch_dims);
}

/// gather_nd with a mutable view of the indices (they are only read).
template <element T, index_element I>
void gather_nd(tensor_view<const std::type_identity_t<T>> input, tensor_view<I> indices, tensor_view<T> output, std::size_t batch_dims = 0) {
    detail::gather_routed<T, I>(sequential, "gather_nd", input, tensor_view<const I>(indices), output, batch_dims);
}
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>>
void gather_nd(E&& exec, tensor_view<const std::type_identity_t<T>> input, tensor_view<I> indices, tensor_view<T> output,
               std::size_t batch_dims = 0) {
    detail::gather_routed<T, I>(exec, "gather_nd", input, tensor_view<const I>(indices), output, batch_dims);
}

}  // namespace tensorops
