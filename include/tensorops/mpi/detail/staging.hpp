// tensorops/mpi/detail/staging.hpp — packed copies of a local view: the sharded operators compute on a packed row-major
// shard (whose loop structure relates to the packed global tensor's by the sharded axis alone), so a shard with any
// other layout is copied in, computed on, and copied out.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "../../core/tensor_view.hpp"
#include "../../iter/nd_loop.hpp"
#include "../../iter/plan.hpp"
#include "../sharded.hpp"

namespace tensorops::mpi::detail {

/// Packed row-major strides of `sizes` (rank `rank`).
[[nodiscard]] inline strides_array packed_strides(const extents_array& sizes, std::size_t rank) noexcept {
    strides_array strides{};
    std::ptrdiff_t step = 1;
    for (std::size_t d = rank; d-- > 0;) {
        strides[d] = step;
        step *= static_cast<std::ptrdiff_t>(sizes[d]);
    }
    return strides;
}

/// Calls body(packed_index_offset, view_offset) for every element of `view`, the packed offsets of its sizes beside
/// the view's own, in the order of the view's memory.
template <class T, class Body>
void for_each_packed_pair(const tensor_view<T>& view, const Body& body) {
    iter::loop_request<2> request;
    request.rank = view.rank();
    for (std::size_t d = 0; d < view.rank(); ++d) request.sizes[d] = view.size(d);
    request.strides[0] = view.stride_array();
    request.strides[1] = packed_strides(view.extents(), view.rank());
    const auto nest = iter::plan_loops(request);
    if (nest.element_count() == 0) return;
    iter::for_each_element(nest, [&](const std::array<std::ptrdiff_t, 2>& at) { body(at[1], at[0]); });
}

/// The elements of `view` in a packed row-major buffer.
template <class T>
[[nodiscard]] std::vector<std::remove_const_t<T>> packed_copy(const tensor_view<T>& view) {
    std::vector<std::remove_const_t<T>> packed(view.element_count());
    const T* data = view.data();
    for_each_packed_pair(view, [&](std::ptrdiff_t packed_at, std::ptrdiff_t view_at) { packed[static_cast<std::size_t>(packed_at)] = data[view_at]; });
    return packed;
}

/// Writes a packed row-major buffer of view's sizes into `view` (an output: its elements are distinct).
template <class T>
void unpack_into(const T* packed, const tensor_view<T>& view) {
    T* data = view.data();
    for_each_packed_pair(view, [&](std::ptrdiff_t packed_at, std::ptrdiff_t view_at) { data[view_at] = packed[packed_at]; });
}

/// A view's elements packed (a copy when the view is not packed already).
template <class T>
struct packed_input {
    std::vector<T> copy;
    const T* data = nullptr;
    explicit packed_input(const tensor_view<const T>& view) {
        if (is_packed(view) || view.empty()) data = view.data();
        else {
            copy = packed_copy(view);
            data = copy.data();
        }
    }
};

}  // namespace tensorops::mpi::detail
