// tensorops/mpi/scatter.hpp — scatter-ND into a sharded output: each rank's index tuples (in global coordinates) and
// updates routed to the ranks whose shards they land on, applied there in global order; bit-identical to
// tensorops::scatter_nd on the gathered input with every rank's indices and updates concatenated in rank order.
#pragma once

#include "detail/mpi_c.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "../core/element.hpp"
#include "../core/tensor_view.hpp"
#include "../exec/executor.hpp"
#include "../ops/arguments.hpp"
#include "../ops/scatter.hpp"
#include "detail/agreement.hpp"
#include "detail/collectives.hpp"
#include "detail/staging.hpp"
#include "detail/tuple_routing.hpp"
#include "sharded.hpp"

namespace tensorops::mpi {
namespace detail {

/// The sharded scatter (see scatter_nd below). Algorithm, after the collective checks (which validate every tuple of
/// every rank, so that nothing is written anywhere unless every rank's call is valid):
///   1. each rank routes its tuples (detail/tuple_routing.hpp: to the owner of the slice, or to every non-empty shard
///      when the sharded axis lies within the slices, each getting its part of the update), and the ranks exchange
///      how many (MPI_Alltoall);
///   2. the tuples and their updates travel (two MPI_Alltoallv); a rank receives them by sending rank, each sender's
///      in its row-major order — the order of the concatenation, restricted to the tuples that touch this shard;
///   3. each rank applies them with the library's scatter_nd on its shard (input → output copy, duplicates, reduction).
/// Every element therefore receives the same updates, in the same order, combined by the same element-wise function,
/// as in the single process on the concatenation: the same bits (for max / min up to what that function leaves
/// unspecified: a NaN's payload, the sign of a tied zero).
template <class T, class I>
void sharded_scatter(const executor_ref& exec, std::string_view operation, const sharded_view<const T>& input,
                     const tensor_view<const I>& indices, const tensor_view<const T>& updates,
                     const sharded_view<T>& output, scatter_reduction reduction) {
    const auto shardings = agree_on_shardings(operation, input, output, [&](const std::pair<sharding, sharding>& s) {
        tensorops::detail::require_reduction<T>(operation, reduction);
        const global_layout global_input(s.first), global_output(s.second);
        tensorops::detail::require_scatter_shapes(operation, global_input.get(), tensorops::detail::layout_of(indices),
                                                  tensorops::detail::layout_of(updates), global_output.get());
        tensorops::detail::require_unique(operation, "output.local", output.local());
        tensorops::detail::require_exact_alias_or_disjoint(operation, "output.local", output.local(), "input.local",
                                                           input.local());
        tensorops::detail::require_disjoint(operation, "output.local", output.local(), "indices", indices);
        tensorops::detail::require_disjoint(operation, "output.local", output.local(), "updates", updates);
        const auto plan = tensorops::detail::plan_tuples(tensorops::detail::layout_of(indices),
                                                         tensorops::detail::layout_of(updates), global_input.get(), 0);
        validate_global_tuples(exec, operation, indices, plan,
                               s.first.here.rank);  // every tuple of every rank, before any write
    });
    const sharding& sh = shardings.first;
    const MPI_Comm comm = input.comm();
    const auto me = static_cast<std::size_t>(sh.here.rank);
    const std::size_t k = indices.size(indices.rank() - 1);
    const tuple_routing routing(sh, k);
    const routed_tuples routed = route_tuples(indices, routing, 0);
    const std::vector<std::size_t> received = exchange_counts(comm, routed.count);  // tuples each rank sends this one
    const std::size_t record = k * sizeof(std::int64_t);
    const byte_blocks tuples_out(routed.count, [&](std::size_t) { return record; }),
        tuples_in(received, [&](std::size_t) { return record; });
    const byte_blocks updates_out(routed.count, [&](std::size_t r) { return routing.piece_elements(r) * sizeof(T); });
    const byte_blocks updates_in(received, [&](std::size_t) { return routing.piece_elements(me) * sizeof(T); });

    // Each tuple's update (or its parts) in send order.
    std::vector<T> outgoing(updates_out.total / sizeof(T));
    if (!outgoing.empty()) {
        const packed_input<T> packed(updates);
        const std::size_t slice = routing.slice_elements();
        for (std::size_t n = 0; n < routed.tuples; ++n) {
            if (!routing.spread) {
                routing.cut(packed.data + n * slice, outgoing.data() + routed.position[n] * slice, 0);
                continue;
            }
            for (std::size_t r = 0; r < sh.shards.size(); ++r)
                if (sh.shards[r].count > 0)
                    routing.cut(packed.data + n * slice,
                                outgoing.data() + updates_out.displacement[r] / sizeof(T) +
                                    n * routing.piece_elements(r),
                                r);
        }
    }
    std::vector<std::int64_t> tuples(tuples_in.total / sizeof(std::int64_t));
    exchange_bytes(comm, routed.coordinates.data(), tuples_out, tuples.data(), tuples_in);
    std::vector<T> incoming(updates_in.total / sizeof(T));
    exchange_bytes(comm, outgoing.data(), updates_out, incoming.data(), updates_in);

    const std::size_t count = tuples.size() / k;
    const std::vector<std::size_t> tuple_sizes{count, k};
    const std::vector<std::size_t> update_sizes = records_of(count, output.local().sizes(), k);
    tensorops::scatter_nd(exec, input.local(), tensor_view<const std::int64_t>(tuples.data(), tuple_sizes),
                          tensor_view<const T>(incoming.data(), update_sizes), output.local(), reduction);
}

}  // namespace detail

/// Scatter-ND into a sharded output: output = input (both sharded alike), then every rank's index tuples, in
/// GLOBAL order — rank 0's tuples in row-major order of its index array, then rank 1's, and so on —
///   global[indices[p, 0], …, indices[p, k−1], j…] ∘= updates[p, j…]   for every trailing index j…,
/// with ∘ the reduction (`none`: replace). That is, by definition, tensorops::scatter_nd on the gathered input with
/// the ranks' index arrays and update arrays concatenated (each flattened over its tuple dimensions) in rank order.
/// `indices` and `updates` are this rank's own (any number of tuples, none included; any strides); the coordinates
/// index the GLOBAL tensor (the sharded axis's global indices; signed ones may count from the end), and updates
/// sizes = indices.shape[:-1] ++ global.shape[k:].
/// A collective: every rank of the communicator calls it, in the same order as its other collectives.
///
/// Result: on every rank's shard, bit for bit what tensorops::scatter_nd writes there on the gathered tensor with
/// the concatenated tuples — duplicates (the last in global order wins) and every reduction (none, add, multiply, max,
/// min, combined in global order) included, for any number of ranks, any shard sizes (unequal, empty), any sharded
/// axis (among the indexed dimensions or the slice's) and any executor. One exception, as unspecified as in
/// tensorops::scatter_nd: with max and min, the payload of a NaN result and which of ±0 wins a tie (the library's
/// vector lanes and its scalar loop differ there, and a shard may cut a slice's contiguous run where the gathered
/// tensor does not). Types and numerics as tensorops::scatter_nd, for trivially copyable T (updates travel as bytes).
/// Aliasing: output.local() may be exactly input.local() (in place); any other overlap with it, and any overlap with
/// indices or updates, is an error.
/// Errors (tensorops::error, on every rank, before anything is written on any rank): the sharding errors of
/// mpi::cumulative_sum; what tensorops::scatter_nd refuses, on any rank, for that rank's indices and updates against
/// the global tensor — a tuple out of range on one rank is reported on every rank (the lowest such rank's first bad
/// tuple, "on rank r" in its rule), as the single process names the first bad tuple of the concatenation.
/// Communication (P ranks): the checks (one allgather, one allreduce), one alltoall of counts, and two alltoallv: the
/// tuples (k int64 each) and the updates, each after an allreduce of the rounds it needs (one while every rank's
/// blocks fit MPI's int counts, 2 GiB; more past it: detail::exchange_bytes). Each tuple goes to the one rank its
/// slice lands on, or, when the sharded axis lies within the slices, to every non-empty shard with its part of the
/// update.
template <element T, index_element I, class E>
    requires executor<std::remove_reference_t<E>> && std::is_trivially_copyable_v<T>
void scatter_nd(E&& exec, sharded_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
                tensor_view<const std::type_identity_t<T>> updates, sharded_view<T> output,
                scatter_reduction reduction = scatter_reduction::none) {
    detail::sharded_scatter<T, I>(exec, "mpi::scatter_nd", input, indices, updates, output, reduction);
}
/// mpi::scatter_nd on the calling thread of each rank.
template <element T, index_element I>
    requires std::is_trivially_copyable_v<T>
void scatter_nd(sharded_view<const std::type_identity_t<T>> input, tensor_view<const I> indices,
                tensor_view<const std::type_identity_t<T>> updates, sharded_view<T> output,
                scatter_reduction reduction = scatter_reduction::none) {
    detail::sharded_scatter<T, I>(sequential, "mpi::scatter_nd", input, indices, updates, output, reduction);
}

}  // namespace tensorops::mpi
