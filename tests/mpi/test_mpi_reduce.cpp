// tests/mpi/test_mpi_reduce.cpp — the sharded reductions and argmax / argmin against the single-process operators on the
// gathered tensor, bit for bit: random ranks, shapes, shard sizes (unequal, empty), axes (the sharded one kept or
// reduced, none at all; often only axes after the sharded one, where the floating functions are computed on the shard),
// functions, types, result on every rank or on a root, local layouts and executors.
#include "mpi_support.hpp"

#include <span>

namespace mpi_test {

inline std::vector<std::size_t> reduce_shape(context& c) {
    const std::size_t rank = c.uniform(1, 4);
    std::vector<std::size_t> sizes(rank);
    const bool large = c.chance(0.15);
    for (auto& size : sizes) size = c.uniform(1, large ? 90 : 12);
    if (c.chance(0.2)) sizes[c.uniform(0, rank - 1)] = c.uniform(100, large ? 40000 : 3000);
    std::size_t count = 1;
    for (std::size_t size : sizes) count *= size;
    for (std::size_t d = 0; count > (std::size_t{1} << 21); d = (d + 1) % rank)  // at most 2M elements (8 MiB of float)
        if (sizes[d] > 1) {
            count = count / sizes[d] * (sizes[d] / 2);
            sizes[d] /= 2;
        }
    return sizes;
}

template <class T, class I>
void reduce_case(context& c, tensorops::thread_pool& pool, const std::vector<std::size_t>& global, std::size_t sharded,
                 const std::vector<std::size_t>& axes, tensorops::reduce_function function);

template <class T, class I>
void reduce_trial(context& c, tensorops::thread_pool& pool) {
    const std::vector<std::size_t> global = reduce_shape(c);
    const std::size_t rank = global.size();
    const std::size_t sharded = c.uniform(0, rank - 1);
    std::vector<std::size_t> axes;
    for (std::size_t d = 0; d < rank; ++d)
        if (c.chance(0.5)) axes.push_back(d);
    if (sharded + 1 < rank && c.chance(0.3)) {  // the shard a piece of the global nest: axes after the sharded one only
        axes.clear();
        for (std::size_t d = sharded + 1; d < rank; ++d)
            if (d + 1 == rank || c.chance(0.5)) axes.push_back(d);
    }
    if (c.chance(0.5)) std::shuffle(axes.begin(), axes.end(), c.random);
    constexpr bool floating = !std::is_integral_v<T>;
    std::vector<tensorops::reduce_function> functions = {tensorops::reduce_function::argmax, tensorops::reduce_function::argmin,
                                                         tensorops::reduce_function::l1,     tensorops::reduce_function::max,
                                                         tensorops::reduce_function::min,    tensorops::reduce_function::multiply,
                                                         tensorops::reduce_function::sum,    tensorops::reduce_function::sum_square};
    if (floating)
        for (auto f : {tensorops::reduce_function::average, tensorops::reduce_function::l2, tensorops::reduce_function::log_sum,
                       tensorops::reduce_function::log_sum_exp})
            functions.push_back(f);
    reduce_case<T, I>(c, pool, global, sharded, axes, functions[c.uniform(0, functions.size() - 1)]);
}

/// The floating functions of the sharded walks' trials: the eight whose units and blocks the walks of rows and of one
/// line follow, then LOG_SUM_EXP (walked over rows by its own blocks, over one line by its fixed blocks) and MULTIPLY
/// (one line by its fixed blocks, rows by its running row).
inline constexpr tensorops::reduce_function floating_functions[] = {
    tensorops::reduce_function::sum,         tensorops::reduce_function::sum_square, tensorops::reduce_function::l1,
    tensorops::reduce_function::l2,          tensorops::reduce_function::average,    tensorops::reduce_function::log_sum,
    tensorops::reduce_function::max,         tensorops::reduce_function::min,        tensorops::reduce_function::log_sum_exp,
    tensorops::reduce_function::multiply};

/// Lines of rows reduced over them, the rows sharded (tensorops/mpi/detail/reduce_rows.hpp: the outer kernel's units
/// folded where their rows are, the rows of a window cut by a shard's end exchanged, the running rows combined along
/// the ranks): rows of 8 KiB (blocks paired two apart in windows of four: two windows and a block), of 16 KiB and a
/// lane (wider than a panel; paired neighbours), of 2 KiB fused two at a time with a row left over (three lone blocks
/// between pairs), of 256 B fused sixteen at a time (three unpaired blocks, eight rows left over), two leading axes
/// reduced whose rows the shards cut inside a fused row, three kept axes; and lines of rows side by side (kept axes
/// before the sharded one: two, three and six lines). Random shards (empty and single-row ones
/// included), every function that walks those units or LOG_SUM_EXP's blocks (256 rows each), and MULTIPLY (its running
/// row passed along the ranks in stages of columns: reduce_running_row.hpp).
template <class T>
void line_of_rows_trial(context& c, tensorops::thread_pool& pool) {
    const std::size_t bytes = sizeof(T);
    const std::vector<std::vector<std::size_t>> shapes = {
        {1100, 8192 / bytes + 8 / bytes}, {300, 16384 / bytes + 1}, {1301, 2048 / bytes},        {5000, 256 / bytes},
        {20, 65, 1200 / bytes},           {30000 / bytes, 3, 7},    {2, 300, 16384 / bytes + 1}, {3, 700, 2048 / bytes},
        {2, 3, 2100, 256 / bytes}};
    // The sharded axis and how many axes from it are reduced: those before it are kept (lines side by side).
    const std::size_t sharded_axis[] = {0, 0, 0, 0, 0, 0, 1, 1, 2}, reduced[] = {1, 1, 1, 1, 2, 1, 1, 1, 1};
    const std::size_t which = c.uniform(0, shapes.size() - 1);
    std::vector<std::size_t> axes;
    for (std::size_t d = sharded_axis[which]; d < sharded_axis[which] + reduced[which]; ++d) axes.push_back(d);
    if (c.chance(0.5)) std::reverse(axes.begin(), axes.end());
    reduce_case<T, std::int64_t>(c, pool, shapes[which], sharded_axis[which], axes,
                                 floating_functions[c.chance(0.8) ? c.uniform(0, 8) : 9]);
}

/// Every axis reduced, the sharded one axis 0 (or another: the tensor first moved into even ranges of its line,
/// reshard.hpp's reshard_flat): one contiguous line — by the functions with line blocks the inner
/// kernel's blocks computed where they lie as aligned nodes of its cascade, the cascade passed along the ranks, the
/// elements after the last full block sent to the last rank (tensorops/mpi/detail/reduce_rows.hpp); by LOG_SUM_EXP and
/// MULTIPLY the fixed blocks' values computed where they start and folded along the ranks (reduce_line_blocks.hpp).
/// Lines of two to six fixed blocks (several cascade blocks and a partial one) in one to three axes, of one fixed
/// block (fewer than two cascade blocks: gathered for the others), of one log-sum-exp stretch (gathered for it);
/// random shards (empty and tiny ones included).
template <class T>
void one_line_trial(context& c, tensorops::thread_pool& pool) {
    const std::vector<std::vector<std::size_t>> shapes = {{70001},    {300, 251}, {41, 33, 61}, {9, 20000},
                                                          {5, 70001}, {200003},   {5000},       {1500}};
    const auto& global = shapes[c.uniform(0, shapes.size() - 1)];
    std::vector<std::size_t> axes(global.size());
    for (std::size_t d = 0; d < axes.size(); ++d) axes[d] = d;
    std::shuffle(axes.begin(), axes.end(), c.random);
    // Axis 0 sharded, or another (the tensor moved into ranges of its one line first: reshard_flat).
    const std::size_t sharded = global.size() > 1 && c.chance(0.5) ? c.uniform(1, global.size() - 1) : 0;
    reduce_case<T, std::int64_t>(c, pool, global, sharded, axes,
                                 floating_functions[c.chance(0.5) ? c.uniform(0, 7) : c.uniform(8, 9)]);
}

/// Floating reductions that re-shard the tensor along its leading kept axes (tensorops/mpi/detail/reshard.hpp: each
/// rank reduces a range of whole groups, the outputs gathered or sent to their owners): the sharded axis reduced —
/// rows whose features are sharded, reduced over them (MULTIPLY too); a reduced axis before
/// the sharded one — and kept, with a reduced axis between the leading ones and it; pieces of one chunk and of several
/// (reshard_chunk_bytes). Random shards, every floating function.
template <class T>
void leading_kept_trial(context& c, tensorops::thread_pool& pool) {
    const std::vector<std::vector<std::size_t>> shapes = {{37, 3000},    {5, 400, 30}, {3, 7, 90, 40}, {6, 50, 33},
                                                          {2, 5, 70, 9}, {700, 1100},  {40, 30, 900}};
    const std::vector<std::vector<std::size_t>> reduced = {{1}, {1}, {2, 1}, {1}, {1}, {1}, {1}};
    const std::size_t sharded_axis[] = {1, 1, 2, 2, 2, 1, 2};
    const std::size_t which = c.uniform(0, shapes.size() - 1);
    const tensorops::reduce_function function =
        which == 0 && c.chance(0.5) ? tensorops::reduce_function::multiply : floating_functions[c.uniform(0, 9)];
    reduce_case<T, std::int64_t>(c, pool, shapes[which], sharded_axis[which], reduced[which], function);
}

/// The leading axes reduced, the sharded one kept after them: the columns of one line of rows cut by the shards (a
/// column-sharded matrix reduced over its rows; tensorops/mpi/detail/reduce_rows.hpp: each rank walks its columns with
/// the whole line's plan). Rows fused twenty at a time, wider than a panel (wide rows globally, not in a shard), a few
/// rows, two leading axes reduced, a kept axis before the sharded one (a shard's columns in stretches), narrow rows
/// fused with a row left over. Every function that walks those units, now and then one gathered instead (LOG_SUM_EXP,
/// MULTIPLY).
template <class T>
void columns_of_rows_trial(context& c, tensorops::thread_pool& pool) {
    const std::vector<std::vector<std::size_t>> shapes = {{300, 50},     {1100, 2100}, {4, 3000},
                                                          {20, 30, 700}, {40, 5, 300}, {3, 2001, 9}};
    const std::vector<std::vector<std::size_t>> reduced = {{0}, {0}, {0}, {1, 0}, {0}, {0, 1}};
    const std::size_t sharded_axis[] = {1, 1, 1, 2, 2, 2};
    const std::size_t which = c.uniform(0, shapes.size() - 1);
    reduce_case<T, std::int64_t>(c, pool, shapes[which], sharded_axis[which], reduced[which],
                                 floating_functions[c.chance(0.7) ? c.uniform(0, 7) : c.uniform(8, 9)]);
}

/// The reduced axes 0 … k with another than axis 0 sharded among them and kept axes after: the rows of one line of
/// rows, reached after moving the tensor into even ranges of its rows (reshard.hpp's reshard_flat): a batch of
/// sequences sharded along the sequence reduced over both, three reduced axes, wide and narrow rows, a line of one
/// unit (gathered after the move). Every floating function. And the sharded axis kept after the reduced ones, by
/// LOG_SUM_EXP and MULTIPLY (no column walk for them): the whole output on every rank after the move, each rank's
/// columns kept.
template <class T>
void flat_rows_trial(context& c, tensorops::thread_pool& pool) {
    const std::vector<std::vector<std::size_t>> shapes = {{6, 500, 7},   {3, 40, 50, 9}, {4, 3000, 5},
                                                          {2, 700, 300}, {5, 9, 200, 3}, {2, 3, 4}};
    const std::vector<std::vector<std::size_t>> reduced = {{0, 1}, {2, 0, 1}, {1, 0}, {0, 1}, {0, 1, 2}, {0, 1}};
    const std::size_t sharded_axis[] = {1, 2, 1, 1, 1, 1};
    if (c.chance(0.4)) {  // the sharded axis kept after them, by the functions no column walk takes
        const std::vector<std::vector<std::size_t>> kept_shapes = {{300, 50}, {4, 3000}, {20, 30, 700}, {7, 5, 40, 3}};
        const std::vector<std::vector<std::size_t>> kept_reduced = {{0}, {0}, {1, 0}, {0}};
        const std::size_t kept_sharded[] = {1, 1, 2, 2};
        const std::size_t which = c.uniform(0, kept_shapes.size() - 1);
        reduce_case<T, std::int64_t>(c, pool, kept_shapes[which], kept_sharded[which], kept_reduced[which],
                                     floating_functions[c.uniform(8, 9)]);
        return;
    }
    const std::size_t which = c.uniform(0, shapes.size() - 1);
    reduce_case<T, std::int64_t>(c, pool, shapes[which], sharded_axis[which], reduced[which],
                                 floating_functions[c.uniform(0, 9)]);
}

/// One call of a sharded reduction (reduce, or argmax / argmin for those functions) of a random tensor of `global`
/// sizes sharded along `sharded` at random, against the single-process call on the whole, bit for bit.
template <class T, class I>
void reduce_case(context& c, tensorops::thread_pool& pool, const std::vector<std::size_t>& global, std::size_t sharded,
                 const std::vector<std::size_t>& axes, tensorops::reduce_function function) {
    const bool whole = std::find(axes.begin(), axes.end(), sharded) != axes.end();
    const bool arg = function == tensorops::reduce_function::argmax || function == tensorops::reduce_function::argmin;
    const auto direction = c.chance(0.5) ? tensorops::axis_direction::increasing : tensorops::axis_direction::decreasing;
    const int root = c.chance(0.5) ? -1 : static_cast<int>(c.uniform(0, static_cast<std::size_t>(c.ranks) - 1));
    const bool on_pool = c.chance(0.3);
    const auto counts = random_split(c, global[sharded]);
    std::size_t offset = 0;
    for (int r = 0; r < c.rank; ++r) offset += counts[static_cast<std::size_t>(r)];

    std::size_t count = 1;
    for (std::size_t size : global) count *= size;
    std::vector<T> data(count);
    const bool small_values = function == tensorops::reduce_function::multiply;
    for (auto& value : data) value = random_value<T>(c, small_values ? 0.95 : (function == tensorops::reduce_function::log_sum ? 0.0 : -1.0), small_values ? 1.05 : 1.0);
    if (arg && c.chance(0.5))  // ties: few distinct values
        for (auto& value : data) value = static_cast<T>(static_cast<int>(c.uniform(0, 3)));
    std::vector<std::size_t> out_global = global;
    for (std::size_t axis : axes) out_global[axis] = 1;
    std::size_t out_count = 1;
    for (std::size_t size : out_global) out_count *= size;
    using U = std::conditional_t<true, T, I>;
    std::vector<T> expected_values(out_count);
    std::vector<I> expected_indices(out_count);
    const tensorops::tensor_view<const T> global_in(data.data(), global);
    const std::span<const std::size_t> axis_span(axes.data(), axes.size());
    if (function == tensorops::reduce_function::argmax)
        tensorops::argmax(global_in, tensorops::tensor_view<I>(expected_indices.data(), out_global), axis_span, direction);
    else if (function == tensorops::reduce_function::argmin)
        tensorops::argmin(global_in, tensorops::tensor_view<I>(expected_indices.data(), out_global), axis_span, direction);
    else
        tensorops::reduce(global_in, tensorops::tensor_view<T>(expected_values.data(), out_global), function, axis_span);
    (void)sizeof(U);

    std::vector<std::size_t> local = global;
    local[sharded] = counts[static_cast<std::size_t>(c.rank)];
    const layout in_layout = random_layout(c, local);
    std::vector<T> in_buffer(in_layout.buffer);
    const tensorops::tensor_view<T> in_view(in_buffer.data() + in_layout.base, local, in_layout.strides);
    for_each_shard_element(local, global, sharded, offset, [&](const std::vector<std::size_t>& index, std::size_t at) { element_at(in_view, index) = data[at]; });
    const tensorops::mpi::sharded_view<const T> in(in_view, sharded, offset, global[sharded], c.comm);

    std::vector<std::size_t> out_local = whole ? out_global : local;
    for (std::size_t axis : axes) out_local[axis] = 1;
    const layout out_layout = random_layout(c, out_local);
    std::vector<T> values(out_layout.buffer, T(3));
    std::vector<I> indices(out_layout.buffer, I(5));
    const tensorops::tensor_view<T> value_view(values.data() + out_layout.base, out_local, out_layout.strides);
    const tensorops::tensor_view<I> index_view(indices.data() + out_layout.base, out_local, out_layout.strides);
    const auto call = [&](auto& exec) {
        if (whole) {
            const tensorops::mpi::result_at where{root};
            if (function == tensorops::reduce_function::argmax) tensorops::mpi::argmax(exec, in, index_view, axis_span, direction, where);
            else if (function == tensorops::reduce_function::argmin) tensorops::mpi::argmin(exec, in, index_view, axis_span, direction, where);
            else tensorops::mpi::reduce(exec, in, value_view, function, axis_span, where);
        } else {
            const tensorops::mpi::sharded_view<T> values_out(value_view, sharded, offset, global[sharded], c.comm);
            const tensorops::mpi::sharded_view<I> indices_out(index_view, sharded, offset, global[sharded], c.comm);
            if (function == tensorops::reduce_function::argmax) tensorops::mpi::argmax(exec, in, indices_out, axis_span, direction);
            else if (function == tensorops::reduce_function::argmin) tensorops::mpi::argmin(exec, in, indices_out, axis_span, direction);
            else tensorops::mpi::reduce(exec, in, values_out, function, axis_span);
        }
    };
    if (on_pool) call(pool);
    else call(tensorops::sequential);

    std::string shape = "{";
    for (std::size_t size : global) shape += std::to_string(size) + " ";
    std::string axis_list = "{";
    for (std::size_t axis : axes) axis_list += std::to_string(axis) + " ";
    const std::string what = type_name<T>() + " " + std::string(tensorops::detail::function_name(function)) + " shape " + shape + "} axes " + axis_list +
                             "} sharded " + std::to_string(sharded) + (whole ? " whole, root " + std::to_string(root) : " kept");
    if (whole && root >= 0 && root != c.rank) {  // not written
        bool untouched = true;
        for (std::size_t i = 0; i < values.size(); ++i) untouched = untouched && same_bits(values[i], T(3)) && indices[i] == I(5);
        c.check(untouched, what + ": a rank other than the root wrote its output");
        return;
    }
    std::size_t wrong = 0;
    for_each_shard_element(out_local, out_global, sharded, whole ? 0 : offset, [&](const std::vector<std::size_t>& index, std::size_t at) {
        const bool same = arg ? element_at(index_view, index) == expected_indices[at] : same_bits(element_at(value_view, index), expected_values[at]);
        if (!same) ++wrong;
    });
    c.check(wrong == 0, what + ": " + std::to_string(wrong) + " outputs differ");
}

}  // namespace mpi_test

int main(int argc, char** argv) {
    return mpi_test::run_trials(argc, argv, "test_mpi_reduce", 80,
                                [](mpi_test::context& c, tensorops::thread_pool& pool) {
        // Random layouts (the integers among them: MPI's own reductions, wrapping, signed and unsigned extremes) in six
        // trials of nine, the floating walks that follow the kernels' orders across ranks in three.
        switch (c.uniform(0, 8)) {
            case 6:
            case 7:
            case 8:
                switch (c.uniform(0, 13)) {
                    case 0: mpi_test::line_of_rows_trial<float>(c, pool); break;
                    case 1: mpi_test::line_of_rows_trial<tensorops::float16>(c, pool); break;
                    case 2: mpi_test::line_of_rows_trial<double>(c, pool); break;
                    case 3: mpi_test::line_of_rows_trial<tensorops::bfloat16>(c, pool); break;
                    case 4: mpi_test::one_line_trial<float>(c, pool); break;
                    case 5: mpi_test::one_line_trial<tensorops::float16>(c, pool); break;
                    case 6: mpi_test::one_line_trial<double>(c, pool); break;
                    case 7: mpi_test::one_line_trial<tensorops::bfloat16>(c, pool); break;
                    case 8: mpi_test::leading_kept_trial<float>(c, pool); break;
                    case 9: mpi_test::leading_kept_trial<tensorops::float16>(c, pool); break;
                    case 12: mpi_test::flat_rows_trial<float>(c, pool); break;
                    case 13: mpi_test::flat_rows_trial<tensorops::float16>(c, pool); break;
                    case 10: mpi_test::columns_of_rows_trial<float>(c, pool); break;
                    default: mpi_test::columns_of_rows_trial<tensorops::bfloat16>(c, pool); break;
                }
                break;
            case 0: mpi_test::reduce_trial<float, std::int64_t>(c, pool); break;
            case 1: mpi_test::reduce_trial<double, std::uint32_t>(c, pool); break;
            case 2: mpi_test::reduce_trial<tensorops::float16, std::int32_t>(c, pool); break;
            case 3: mpi_test::reduce_trial<std::uint8_t, std::int32_t>(c, pool); break;
            case 4: mpi_test::reduce_trial<std::int64_t, std::uint64_t>(c, pool); break;
            default: mpi_test::reduce_trial<std::int32_t, std::int64_t>(c, pool); break;
        }
    });
}
