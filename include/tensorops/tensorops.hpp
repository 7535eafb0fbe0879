// tensorops/tensorops.hpp — the public API in one include.
//
// Element types: float16 (core/float16.hpp), bfloat16 (core/bfloat16.hpp) and the concepts and identities of
// core/element.hpp.
// Views: tensor_view<T> (core/tensor_view.hpp). Errors: tensorops::error (core/error.hpp).
// Operators: cumulative_sum, cumulative_product, cumulative_scan (ops/cumulative.hpp); cumulative_max, cumulative_min
// (with or without indices) and cumulative_log_sum_exp (ops/cumulative_extreme.hpp); reduce (ops/reduce.hpp);
// argmax, argmin (ops/arg_reduce.hpp); scatter_nd with its reduction modes (ops/scatter.hpp); gather_nd (ops/gather.hpp).
// Execution: every operator also takes an executor first — tensorops::thread_pool (exec/thread_pool.hpp),
// tensorops::sequential, or any type the `executor` concept accepts (exec/executor.hpp); results are
// bit-identical for any executor and thread count.
// Runtime-typed layer: tensorops::dml — DirectML's data types and descriptors, calc_buffer_tensor_size, validate
// and execute (dml/descriptors.hpp, dml/validate.hpp, dml/execute.hpp).
// Version: TENSOROPS_VERSION_MAJOR/MINOR/PATCH and TENSOROPS_VERSION (version.hpp).
#pragma once

#include "core/language.hpp"  // first: a clear #error below C++20

#include "core/bfloat16.hpp"
#include "core/element.hpp"
#include "core/error.hpp"
#include "core/float16.hpp"
#include "core/tensor_view.hpp"
#include "dml/descriptors.hpp"
#include "dml/execute.hpp"
#include "dml/validate.hpp"
#include "exec/executor.hpp"
#include "exec/thread_pool.hpp"
#include "isa_level.hpp"
#include "ops/arg_reduce.hpp"
#include "ops/cumulative.hpp"
#include "ops/cumulative_extreme.hpp"
#include "ops/gather.hpp"
#include "ops/reduce.hpp"
#include "ops/scatter.hpp"
#include "version.hpp"
