// tests/mpi/test_mpi_gather.cpp — mpi::gather_nd against tensorops::gather_nd on the gathered input, bit for bit:
// random ranks, shapes, shard sizes (unequal, empty), sharded axis (a batch, an indexed or a slice dimension),
// batch_dims, index and element types, negative and duplicate tuples, tuple counts differing by rank (none included),
// local layouts and executors; then an out-of-range tuple or a wrong output on one rank only, the same error on every
// rank, nothing written, and the ranks still in step.
#include "tuple_support.hpp"

#include <span>

namespace mpi_test {

template <class T, class I>
void gather_trial(context& c, tensorops::thread_pool& pool) {
    const std::size_t rank = c.uniform(1, 4);
    std::vector<std::size_t> global(rank);
    for (auto& size : global) size = c.uniform(1, 6);
    if (c.chance(0.2)) global[c.uniform(0, rank - 1)] = c.uniform(20, 60);
    const std::size_t batch_dims = c.uniform(0, std::min<std::size_t>(rank - 1, 2));
    const std::size_t k = c.uniform(1, rank - batch_dims);
    if (batch_dims + k < rank && c.chance(0.1)) global[c.uniform(batch_dims + k, rank - 1)] = 0;  // empty slices
    const shards s = random_shards(c, global, c.uniform(0, rank - 1));
    const bool few = c.chance(0.3), on_pool = c.chance(0.3);

    std::vector<T> data(element_count(global));
    for (auto& value : data) value = random_element<T>(c, true);
    const std::vector<std::size_t> extents(global.begin() + static_cast<std::ptrdiff_t>(batch_dims),
                                           global.begin() + static_cast<std::ptrdiff_t>(batch_dims + k));
    // Every rank's tuples (drawn on every rank, in rank order): batch dimensions first, then 0 to 2 more of 0 to 3.
    std::vector<std::vector<std::size_t>> tuple_sizes(static_cast<std::size_t>(c.ranks)), index_sizes, output_sizes;
    std::vector<I> my_indices;
    for (std::size_t r = 0; r < tuple_sizes.size(); ++r) {
        tuple_sizes[r].assign(global.begin(), global.begin() + static_cast<std::ptrdiff_t>(batch_dims));
        const std::size_t extra = c.uniform(0, 2);
        for (std::size_t d = 0; d < extra; ++d) tuple_sizes[r].push_back(c.uniform(0, 3));
        std::vector<I> values = random_tuples<I>(c, tuple_sizes[r], extents, few);
        index_sizes.push_back(tuple_sizes[r]);
        index_sizes.back().push_back(k);
        output_sizes.push_back(tuple_sizes[r]);
        output_sizes.back().insert(output_sizes.back().end(),
                                   global.begin() + static_cast<std::ptrdiff_t>(batch_dims + k), global.end());
        if (r == static_cast<std::size_t>(c.rank)) my_indices = std::move(values);
    }
    const auto me = static_cast<std::size_t>(c.rank);
    std::vector<T> expected(element_count(output_sizes[me]));
    tensorops::gather_nd(tensorops::tensor_view<const T>(data.data(), global),
                         tensorops::tensor_view<const I>(my_indices.data(), index_sizes[me]),
                         tensorops::tensor_view<T>(expected.data(), output_sizes[me]), batch_dims);

    std::vector<std::vector<std::size_t>> local_sizes(static_cast<std::size_t>(c.ranks), s.global);
    for (std::size_t r = 0; r < local_sizes.size(); ++r) local_sizes[r][s.axis] = s.counts[r];
    const layout in_layout = my_layout(c, local_sizes), index_layout = my_layout(c, index_sizes),
                 out_layout = my_layout(c, output_sizes);
    std::vector<T> shard(element_count(s.local));
    for_each_shard_element(s.local, s.global, s.axis, s.offset,
                           [&](const std::vector<std::size_t>& index, std::size_t at) {
        std::size_t packed = 0;
        for (std::size_t d = 0; d < index.size(); ++d) packed = packed * s.local[d] + index[d];
        shard[packed] = data[at];
    });
    const placed<T> in = place(in_layout, s.local, shard, T{});
    const placed<I> indices = place(index_layout, index_sizes[me], my_indices, I{});
    placed<T> out = place(out_layout, output_sizes[me], std::vector<T>{}, static_cast<T>(7));
    const tensorops::mpi::sharded_view<const T> sharded(in.view, s.axis, s.offset, s.global[s.axis], c.comm);
    const tensorops::tensor_view<const I> index_view(indices.view);
    if (on_pool) tensorops::mpi::gather_nd(pool, sharded, index_view, out.view, batch_dims);
    else tensorops::mpi::gather_nd(sharded, index_view, out.view, batch_dims);

    std::size_t wrong = 0;
    for_each_shard_element(output_sizes[me], output_sizes[me], 0, 0,
                           [&](const std::vector<std::size_t>& index, std::size_t at) {
        if (!same_bits(element_at(out.view, index), expected[at])) ++wrong;
    });
    c.check(wrong == 0, type_name<T>() + " indices " + type_name<I>() + " global " + describe(global) + " sharded " +
                            std::to_string(s.axis) + " batch_dims " + std::to_string(batch_dims) + " k " +
                            std::to_string(k) + " tuples " + describe(tuple_sizes[me]) + ": " + std::to_string(wrong) +
                            " outputs differ");
}

/// An out-of-range tuple, then a wrong output, on the last rank only: the same error on every rank, nothing written;
/// then a valid call.
void gather_errors(context& c) {
    constexpr std::size_t columns = 3;
    const std::size_t rows = 2 * static_cast<std::size_t>(c.ranks) + 1;
    const auto mine = tensorops::mpi::block_shard(rows, c.comm);
    std::vector<float> shard(mine.count * columns);
    for (std::size_t i = 0; i < shard.size(); ++i) shard[i] = static_cast<float>(mine.offset * columns + i);
    const tensorops::mpi::sharded_view<const float> input(tensorops::tensor_view<const float>(shard.data(),
                                                                                              {mine.count, columns}),
                                                          0, mine.offset, rows, c.comm);
    const bool guilty = c.rank == c.ranks - 1;
    std::vector<std::int32_t> tuples{0, -1, static_cast<std::int32_t>(rows - 1)};
    if (guilty) tuples[1] = static_cast<std::int32_t>(rows);  // one past the end of the global axis
    std::vector<float> output(tuples.size() * columns, 7.0f);
    const auto untouched = [&] { return std::all_of(output.begin(), output.end(), [](float v) { return v == 7.0f; }); };
    const tensorops::tensor_view<const std::int32_t> index_view(tuples.data(), {tuples.size(), 1});
    const std::string out_of_range = expect_same_error(c, "gather: a tuple out of range on one rank", "indices", [&] {
        tensorops::mpi::gather_nd(input, index_view,
                                  tensorops::tensor_view<float>(output.data(), {tuples.size(), columns}));
    });
    c.check(untouched(), "gather: a tuple out of range on one rank: an output was written");
    c.check(out_of_range.find("on rank " + std::to_string(c.ranks - 1) + ", the index tuple indices[1, :]") !=
                std::string::npos,
            "gather: the error names the rank and its tuple: " + out_of_range);
    tuples[1] = -1;
    expect_same_error(c, "gather: a wrong output on one rank", "output", [&] {
        tensorops::mpi::gather_nd(input, index_view,
                                  tensorops::tensor_view<float>(output.data(),
                                                                {tuples.size(), guilty ? columns - 1 : columns}));
    });
    c.check(untouched(), "gather: a wrong output on one rank: an output was written");
    tensorops::mpi::gather_nd(input, index_view,
                              tensorops::tensor_view<float>(output.data(), {tuples.size(), columns}));
    const std::size_t rows_read[] = {0, rows - 1, rows - 1};
    bool right = true;
    for (std::size_t t = 0; t < tuples.size(); ++t)
        for (std::size_t j = 0; j < columns; ++j)
            right = right && output[t * columns + j] == static_cast<float>(rows_read[t] * columns + j);
    c.check(right, "gather: the valid call after the errors");
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    return mpi_test::run_trials(
        argc, argv, "test_mpi_gather", 80,
        [](mpi_test::context& c, tensorops::thread_pool& pool) {
            switch (c.uniform(0, 3)) {
                case 0: mpi_test::gather_trial<float, std::int64_t>(c, pool); break;
                case 1: mpi_test::gather_trial<tensorops::float16, std::int32_t>(c, pool); break;
                case 2: mpi_test::gather_trial<std::int16_t, std::uint32_t>(c, pool); break;
                default: mpi_test::gather_trial<double, std::uint64_t>(c, pool); break;
            }
        }, mpi_test::gather_errors);
}
