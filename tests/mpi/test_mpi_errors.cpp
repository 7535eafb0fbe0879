// tests/mpi/test_mpi_errors.cpp — a bad argument on any one rank is the same tensorops::error on every rank, thrown
// before anything is written on any rank, and the ranks stay in step (a valid call after each error still works).
#include "mpi_support.hpp"

#include <array>
#include <functional>
#include <span>

namespace mpi_test {

/// Runs `call` (which every rank makes, one of them with a broken argument) and checks that every rank threw
/// tensorops::error with the same message naming `argument`, and that `untouched()` holds on every rank.
inline void expect_error_everywhere(context& c, const std::string& name, const std::string& argument, const std::function<void()>& call,
                                    const std::function<bool()>& untouched) {
    expect_same_error(c, name, argument, call);
    c.check(untouched(), name + ": an output was written");
}

void error_cases(context& c) {
    constexpr std::size_t columns = 5;
    const std::size_t global_rows = 4 * static_cast<std::size_t>(c.ranks) + 3;
    const auto mine = tensorops::mpi::block_shard(global_rows, c.comm);
    const int culprit = c.ranks - 1;  // the last rank breaks the rule (rank 0 when alone)
    std::vector<float> input(mine.count * columns), output(mine.count * columns, 7.0f), reduced(columns, 7.0f);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(mine.offset * columns + i) * 0.5f;
    const tensorops::tensor_view<const float> in_local(input.data(), {mine.count, columns});
    const tensorops::tensor_view<float> out_local(output.data(), {mine.count, columns});
    const auto untouched = [&] {
        return std::all_of(output.begin(), output.end(), [](float v) { return v == 7.0f; }) &&
               std::all_of(reduced.begin(), reduced.end(), [](float v) { return v == 7.0f; });
    };
    const auto sharded_in = [&](std::size_t offset, std::size_t axis = 0) { return tensorops::mpi::sharded_view<const float>(in_local, axis, offset, global_rows, c.comm); };
    const tensorops::mpi::sharded_view<float> out(out_local, 0, mine.offset, global_rows, c.comm);
    const bool guilty = c.rank == culprit;

    expect_error_everywhere(c, "a gap between shards", "input.offset",
                            [&] { tensorops::mpi::cumulative_sum<float>(sharded_in(mine.offset + (guilty ? 1 : 0)), out, {.axis = 0}); }, untouched);
    expect_error_everywhere(c, "a scan axis beyond the rank on one rank", "options.axis",
                            [&] { tensorops::mpi::cumulative_sum<float>(sharded_in(mine.offset), out, {.axis = guilty ? 2u : 0u}); }, untouched);
    if (c.ranks > 1)  // (alone, the other axis is also of another global size: a different rule)
        expect_error_everywhere(c, "one rank shards another axis", "input.axis",
                                [&] { tensorops::mpi::cumulative_product<float>(sharded_in(mine.offset, guilty ? 1 : 0), out, {.axis = 1}); }, untouched);
    std::vector<std::int64_t> indices((mine.count + 1) * columns, 7);
    const auto indices_untouched = [&] {
        return untouched() && std::all_of(indices.begin(), indices.end(), [](std::int64_t i) { return i == 7; });
    };
    if (c.ranks >
        1)  // the culprit's indices start one row later, the rank before it holds that row: they tile, unlike the input
        expect_error_everywhere(
            c, "indices sharded unlike the input", "indices.offset",
            [&] {
            const std::size_t at = mine.offset + (guilty ? 1 : 0);
            const std::size_t rows = guilty ? mine.count - 1 : c.rank == culprit - 1 ? mine.count + 1 : mine.count;
            const tensorops::mpi::sharded_view<std::int64_t> index_view(
                tensorops::tensor_view<std::int64_t>(indices.data(), {rows, columns}), 0, at, global_rows, c.comm);
            tensorops::mpi::cumulative_max<float>(sharded_in(mine.offset), out, index_view, {.axis = 0});
            },
            indices_untouched);
    const std::array<std::size_t, 1> along_rows{0}, along_columns{1};
    expect_error_everywhere(c, "a sharded output for a reduction of the sharded axis", "axes",
                            [&] { tensorops::mpi::reduce(sharded_in(mine.offset), out, tensorops::reduce_function::sum, std::span<const std::size_t>(along_rows)); },
                            untouched);
    expect_error_everywhere(c, "a whole output of the wrong size on one rank", "output",
                            [&] {
                                const std::size_t size = guilty ? columns - 1 : columns;
                                tensorops::mpi::reduce(sharded_in(mine.offset), tensorops::tensor_view<float>(reduced.data(), {1, size}),
                                                       tensorops::reduce_function::sum, std::span<const std::size_t>(along_rows));
                            },
                            untouched);
    expect_error_everywhere(c, "a root that is not a rank", "where.root",
                            [&] {
                                tensorops::mpi::reduce(sharded_in(mine.offset), tensorops::tensor_view<float>(reduced.data(), {1, columns}),
                                                       tensorops::reduce_function::max, std::span<const std::size_t>(along_rows),
                                                       tensorops::mpi::on_rank(c.ranks));
                            },
                            untouched);
    std::vector<float> short_output(columns, 7.0f);
    expect_error_everywhere(c, "an integer-only rule: L2 of int32 (checked on every rank)", "function",
                            [&] {
                                std::vector<std::int32_t> ints(mine.count * columns, 1), sums(columns, 0);
                                const tensorops::mpi::sharded_view<const std::int32_t> int_in(
                                    tensorops::tensor_view<const std::int32_t>(ints.data(), {mine.count, columns}), 0, mine.offset, global_rows, c.comm);
                                tensorops::mpi::reduce(int_in, tensorops::tensor_view<std::int32_t>(sums.data(), {1, columns}), tensorops::reduce_function::l2,
                                                       std::span<const std::size_t>(along_rows));
                            },
                            untouched);

    // Still in step: a valid scan and a valid reduction after the errors.
    tensorops::mpi::cumulative_sum<float>(sharded_in(mine.offset), out, {.axis = 0});
    std::vector<float> whole(global_rows * columns), expected(global_rows * columns);
    for (std::size_t i = 0; i < whole.size(); ++i) whole[i] = static_cast<float>(i) * 0.5f;
    tensorops::cumulative_sum(tensorops::tensor_view<const float>(whole.data(), {global_rows, columns}),
                              tensorops::tensor_view<float>(expected.data(), {global_rows, columns}), {.axis = 0});
    bool same = true;
    for (std::size_t i = 0; i < output.size(); ++i) same = same && same_bits(output[i], expected[mine.offset * columns + i]);
    c.check(same, "the valid scan after the errors");
    std::vector<float> row_sums(mine.count);
    tensorops::mpi::reduce(sharded_in(mine.offset), tensorops::mpi::sharded_view<float>(tensorops::tensor_view<float>(row_sums.data(), {mine.count, 1}), 0,
                                                                                         mine.offset, global_rows, c.comm),
                           tensorops::reduce_function::sum, std::span<const std::size_t>(along_columns));
    std::vector<float> expected_sums(global_rows);
    tensorops::reduce(tensorops::tensor_view<const float>(whole.data(), {global_rows, columns}), tensorops::tensor_view<float>(expected_sums.data(), {global_rows, 1}),
                      tensorops::reduce_function::sum, std::span<const std::size_t>(along_columns));
    same = true;
    for (std::size_t i = 0; i < row_sums.size(); ++i) same = same && same_bits(row_sums[i], expected_sums[mine.offset + i]);
    c.check(same, "the valid reduction after the errors");
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int status = 0;
    {
        mpi_test::context c;
        mpi_test::error_cases(c);
        status = mpi_test::finish(c, "test_mpi_errors");
    }
    MPI_Finalize();
    return status;
}
