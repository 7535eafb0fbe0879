// tests/mpi/test_mpi_scatter.cpp — mpi::scatter_nd against tensorops::scatter_nd on the gathered input with every
// rank's indices and updates concatenated in rank order, bit for bit: random ranks, shapes, shard sizes (unequal,
// empty), sharded axis (an indexed or a slice dimension), index and element types, every reduction, duplicates within
// and across ranks, negative tuples, tuple counts differing by rank (none included), in place or not, local layouts and
// executors; then an out-of-range tuple or wrong updates on one rank only: the same error on every rank, no shard
// written (in place either), and the ranks still in step.
#include "tuple_support.hpp"

#include <span>

namespace mpi_test {

template <class T, class I>
void scatter_trial(context& c, tensorops::thread_pool& pool) {
    const std::size_t rank = c.uniform(1, 4);
    std::vector<std::size_t> global(rank);
    for (auto& size : global) size = c.uniform(1, 6);
    if (c.chance(0.2)) global[c.uniform(0, rank - 1)] = c.uniform(20, 60);
    const std::size_t k = c.uniform(1, rank);
    if (k < rank && c.chance(0.1)) global[c.uniform(k, rank - 1)] = 0;  // empty slices
    const shards s = random_shards(c, global, c.uniform(0, rank - 1));
    constexpr tensorops::scatter_reduction reductions[] = {tensorops::scatter_reduction::none,
                                                           tensorops::scatter_reduction::add,
                                                           tensorops::scatter_reduction::multiply,
                                                           tensorops::scatter_reduction::max,
                                                           tensorops::scatter_reduction::min};
    const auto reduction = reductions[c.uniform(0, 4)];
    const bool few = c.chance(0.5), on_pool = c.chance(0.3), in_place = c.chance(0.3);

    std::vector<T> data(element_count(global));
    for (auto& value : data) value = random_element<T>(c, true);
    const std::vector<std::size_t> extents(global.begin(), global.begin() + static_cast<std::ptrdiff_t>(k));
    const std::vector<std::size_t> slice(global.begin() + static_cast<std::ptrdiff_t>(k), global.end());
    const std::size_t slice_count = element_count(slice);
    // Every rank's tuples and updates (drawn on every rank, in rank order), and their concatenation.
    std::vector<std::vector<std::size_t>> index_sizes, update_sizes;
    std::vector<I> all_indices, my_indices;
    std::vector<T> all_updates, my_updates;
    const auto me = static_cast<std::size_t>(c.rank);
    for (std::size_t r = 0; r < static_cast<std::size_t>(c.ranks); ++r) {
        std::vector<std::size_t> tuple_sizes(c.uniform(0, 2));
        for (auto& size : tuple_sizes) size = c.uniform(0, 3);
        std::vector<I> indices = random_tuples<I>(c, tuple_sizes, extents, few);
        std::vector<T> updates(element_count(tuple_sizes) * slice_count);
        for (auto& value : updates) value = random_element<T>(c, true);
        all_indices.insert(all_indices.end(), indices.begin(), indices.end());
        all_updates.insert(all_updates.end(), updates.begin(), updates.end());
        index_sizes.push_back(tuple_sizes);
        index_sizes.back().push_back(k);
        update_sizes.push_back(tuple_sizes);
        update_sizes.back().insert(update_sizes.back().end(), slice.begin(), slice.end());
        if (r == me) {
            my_indices = std::move(indices);
            my_updates = std::move(updates);
        }
    }
    const std::size_t total = all_indices.size() / k;
    std::vector<std::size_t> all_update_sizes{total};
    all_update_sizes.insert(all_update_sizes.end(), slice.begin(), slice.end());
    std::vector<T> expected(data.size());
    tensorops::scatter_nd(tensorops::tensor_view<const T>(data.data(), global),
                          tensorops::tensor_view<const I>(all_indices.data(), {total, k}),
                          tensorops::tensor_view<const T>(all_updates.data(), all_update_sizes),
                          tensorops::tensor_view<T>(expected.data(), global), reduction);

    std::vector<std::vector<std::size_t>> local_sizes(static_cast<std::size_t>(c.ranks), s.global);
    for (std::size_t r = 0; r < local_sizes.size(); ++r) local_sizes[r][s.axis] = s.counts[r];
    const layout in_layout = my_layout(c, local_sizes), out_layout = my_layout(c, local_sizes);
    const layout index_layout = my_layout(c, index_sizes), update_layout = my_layout(c, update_sizes);
    std::vector<T> shard(element_count(s.local));
    for_each_shard_element(s.local, s.global, s.axis, s.offset,
                           [&](const std::vector<std::size_t>& index, std::size_t at) {
        std::size_t packed = 0;
        for (std::size_t d = 0; d < index.size(); ++d) packed = packed * s.local[d] + index[d];
        shard[packed] = data[at];
    });
    placed<T> in = place(in_layout, s.local, shard, T{});
    placed<T> separate = place(out_layout, s.local, std::vector<T>{}, static_cast<T>(7));
    const tensorops::tensor_view<T> out_view = in_place ? in.view : separate.view;
    const placed<I> indices = place(index_layout, index_sizes[me], my_indices, I{});
    const placed<T> updates = place(update_layout, update_sizes[me], my_updates, T{});
    const tensorops::mpi::sharded_view<const T> input(tensorops::tensor_view<const T>(in.view), s.axis, s.offset,
                                                      s.global[s.axis], c.comm);
    const tensorops::mpi::sharded_view<T> output(out_view, s.axis, s.offset, s.global[s.axis], c.comm);
    const tensorops::tensor_view<const I> index_view(indices.view);
    const tensorops::tensor_view<const T> update_view(updates.view);
    if (on_pool) tensorops::mpi::scatter_nd(pool, input, index_view, update_view, output, reduction);
    else tensorops::mpi::scatter_nd(input, index_view, update_view, output, reduction);

    // max and min leave a NaN's payload and the sign of a tied zero unspecified (tensorops::scatter_nd's contract):
    // the library's vector and scalar paths differ there, and a shard can cut a slice's contiguous run differently.
    const bool extreme =
        reduction == tensorops::scatter_reduction::max || reduction == tensorops::scatter_reduction::min;
    std::size_t wrong = 0;
    std::string first_difference;
    for_each_shard_element(s.local, s.global, s.axis, s.offset,
                           [&](const std::vector<std::size_t>& index, std::size_t at) {
        if (same_bits(element_at(out_view, index), expected[at]) ||
            (extreme && same_unspecified(element_at(out_view, index), expected[at])))
            return;
        if (wrong++ == 0)
            first_difference = ", the first at global element " + std::to_string(at) + ": " +
                               bits_of(element_at(out_view, index)) + " instead of " + bits_of(expected[at]);
    });
    std::size_t my_tuples = my_indices.size() / k;
    c.check(wrong == 0, type_name<T>() + " indices " + type_name<I>() + " reduction " +
                            std::string(tensorops::detail::reduction_name(reduction)) + " global " + describe(global) +
                            " sharded " + std::to_string(s.axis) + " k " + std::to_string(k) + " tuples here " +
                            std::to_string(my_tuples) + " of " + std::to_string(total) + (in_place ? " in place" : "") +
                            ": " + std::to_string(wrong) + " elements differ" + first_difference);
}

/// An out-of-range tuple, then updates of the wrong sizes, on the last rank only: the same error on every rank, no
/// shard written (in place); then a valid call.
void scatter_errors(context& c) {
    constexpr std::size_t columns = 3;
    const std::size_t rows = 2 * static_cast<std::size_t>(c.ranks) + 1;
    const auto mine = tensorops::mpi::block_shard(rows, c.comm);
    std::vector<std::int32_t> shard(mine.count * columns, 7);
    const tensorops::tensor_view<std::int32_t> local(shard.data(), {mine.count, columns});
    const tensorops::mpi::sharded_view<std::int32_t> output(local, 0, mine.offset, rows, c.comm);
    const bool guilty = c.rank == c.ranks - 1;
    std::vector<std::int64_t> tuples{0, -1, 0};
    if (guilty) tuples[2] = -static_cast<std::int64_t>(rows) - 1;  // one before the start of the global axis
    std::vector<std::int32_t> updates(tuples.size() * columns, 1);
    const auto untouched = [&] {
        return std::all_of(shard.begin(), shard.end(), [](std::int32_t v) { return v == 7; });
    };
    const tensorops::tensor_view<const std::int64_t> index_view(tuples.data(), {tuples.size(), 1});
    const std::string out_of_range = expect_same_error(c, "scatter: a tuple out of range on one rank", "indices", [&] {
        tensorops::mpi::scatter_nd(output, index_view,
                                   tensorops::tensor_view<const std::int32_t>(updates.data(), {tuples.size(), columns}),
                                   output, tensorops::scatter_reduction::add);
    });
    c.check(untouched(), "scatter: a tuple out of range on one rank: a shard was written");
    c.check(out_of_range.find("on rank " + std::to_string(c.ranks - 1) + ", the index tuple indices[2, :]") !=
                std::string::npos,
            "scatter: the error names the rank and its tuple: " + out_of_range);
    tuples[2] = 0;
    expect_same_error(c, "scatter: wrong updates on one rank", "updates", [&] {
        tensorops::mpi::scatter_nd(
            output, index_view,
            tensorops::tensor_view<const std::int32_t>(updates.data(), {tuples.size(), guilty ? columns - 1 : columns}),
            output, tensorops::scatter_reduction::add);
    });
    c.check(untouched(), "scatter: wrong updates on one rank: a shard was written");
    // Valid: every rank adds 1 to row 0 twice and to the last row once.
    tensorops::mpi::scatter_nd(output, index_view,
                               tensorops::tensor_view<const std::int32_t>(updates.data(), {tuples.size(), columns}),
                               output, tensorops::scatter_reduction::add);
    bool right = true;
    for (std::size_t i = 0; i < mine.count; ++i) {
        const std::size_t row = mine.offset + i;
        const std::int32_t want = 7 + (row == 0 ? 2 * c.ranks : 0) + (row == rows - 1 ? c.ranks : 0);
        for (std::size_t j = 0; j < columns; ++j) right = right && shard[i * columns + j] == want;
    }
    c.check(right, "scatter: the valid call after the errors");
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    return mpi_test::run_trials(
        argc, argv, "test_mpi_scatter", 80,
        [](mpi_test::context& c, tensorops::thread_pool& pool) {
            switch (c.uniform(0, 3)) {
                case 0: mpi_test::scatter_trial<float, std::int64_t>(c, pool); break;
                case 1: mpi_test::scatter_trial<tensorops::float16, std::int32_t>(c, pool); break;
                case 2: mpi_test::scatter_trial<std::int32_t, std::uint32_t>(c, pool); break;
                default: mpi_test::scatter_trial<std::uint8_t, std::uint64_t>(c, pool); break;
            }
        }, mpi_test::scatter_errors);
}
