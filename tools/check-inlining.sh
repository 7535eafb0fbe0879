#!/usr/bin/env bash
# Checks that the kernels' per-vector helpers are inlined where users compile them: one small translation unit per
# element type instantiating every reduction, argmax/argmin and the scans, built with g++ -O2 (and clang++ -O2) for
# x86-64-v4 (512-bit registers), x86-64-v3 and baseline x86-64; any call left to a function of tensorops::simd or to
# iter::unrolled's steps, or to xsimd, fails.
#
# Why: these helpers run once per vector, and a call to one out of line costs more than its work — its registers go
# through memory. GCC 12 -O2 decides by the size of the caller and of the whole unit, so the same helper was
# inlined in one program and called in another: the in-register scan of a float line (20 % of its time), the
# in-half scan steps of uint8 (2.1×) and iter::unrolled in the float16 reductions (1.9×) were all found called
# out of line in small programs, while the benchmark suite (-O3) inlined them. Those helpers are always_inline now;
# this script is how to find the next one. Not part of tools/run-tests.sh (a few minutes of compile time). It does
# not find them all: a small -march=x86-64-v4 program calling reduce() for log-sum-exp alone called
# simd::exp_over_power_of_two once per vector (1.85× slower than inlined), where these units inlined it; simd/math.hpp's
# per-vector functions are always_inline since, and the x86-64-v4 units were added.
#
# Usage: tools/check-inlining.sh [compiler ...]   (default: g++ clang++; MARCHES="x86-64-v4 ..." to choose levels)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
compilers=("$@")
[ ${#compilers[@]} -eq 0 ] && compilers=(g++ clang++)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

types=(float double tensorops::float16 std::int8_t std::uint8_t std::int16_t std::int32_t std::uint64_t)
failed=0
for cxx in "${compilers[@]}"; do
  for march in ${MARCHES:-x86-64-v4 x86-64-v3 x86-64}; do
    for type in "${types[@]}"; do
      source="$work/unit.cpp"
      cat >"$source" <<EOF
#include <tensorops/tensorops.hpp>
#include <cstdint>
using namespace tensorops;
using T = $type;
void every_kernel(tensor_view<const T> x, tensor_view<T> y, tensor_view<T> reduced, tensor_view<std::int64_t> index,
                  reduce_function function, std::size_t axis, axis_direction direction, bool exclusive) {
    reduce(x, reduced, function, {axis});
    reduce(x, reduced, function, {0, 1});
    argmax(x, index, {axis}, direction);
    argmin(x, index, {axis}, direction);
    cumulative_sum(x, y, {axis, direction, exclusive});
    cumulative_product(x, y, {axis, direction, exclusive});
}
EOF
      object="$work/unit.o"
      "$cxx" -std=c++20 -O2 -march="$march" -DNDEBUG -I"$root/include" -c "$source" -o "$object"
      # Mangled names: tensorops::simd::… starts _ZN9tensorops4simd, iter::unrolled _ZN9tensorops4iter8unrolled,
      # its steps _ZN9tensorops4iter6detail14unrolled_steps.
      # simd::exp and log may stay out of line on purpose (see simd/math.hpp: inlined, their copies were contracted
      # differently in kernels that must agree bit for bit): _ZN9tensorops4simd3exp…, …4simd3log… are not counted,
      # nor what they call (xsimd's exp and log kernels, and simd::detail::each_lane, their double lanes one at a
      # time). exp_shifted, with nothing contractible, is always inlined now (its float lanes were a call before
      # 2026-11-27 18:00) and counted.
      # Also the kernels' per-vector lambdas, local entities (_ZZN…): the across-rows scan's column steps
      # (scan_rows_into_carry), the narrow-row kernel's component gathers (narrow_rows) and every step a row walk
      # (for_each_row_vector) calls — found out of line in small -O2 programs (rows scan 1.6x, narrow rows 2x slower).
      # And anything of xsimd's (_ZN5xsimd: its batch_bool built from one bool a lane, for select_constant on byte lanes,
      # was such a call) and std::fill_n over vector registers (std::array::fill of accumulators: the array then lives
      # on the stack) — each found in an -O2 build, 1.6–5× slower than at -O3 (bench/RESULTS.md, 2026-11-27 07:17).
      # (The short-row kernel's group step may stay a call: one per group of rows, its registers its own.)
      # The callees are read from the calls' relocations (objdump -r): in an object file a call into another section —
      # every inline function or lambda has its own — is only a relocation, which plain -d shows as an offset of some
      # unrelated symbol (`main.cold+0xd`), so such calls went unseen (the AVX-512 byte lanes' select_constant was found
      # once they were read from the relocations). float16 at -march=x86-64 called xsimd's select of float lanes with
      # a constant mask (SSE2 has no immediate blend) until select_constant took such masks from memory (2026-11-27).
      pattern="(_ZN9tensorops(4simd|4iter8unrolled|4iter6detail14unrolled_steps)|_ZZN9tensorops6detail(20scan_rows_into_carry|11narrow_rows)|_ZZN9tensorops[^ +]*19for_each_row_vector|_ZN5xsimd|_ZSt6fill_nIPN5xsimd)[^ +]*"
      calls=$(objdump -dr --no-show-raw-insn "$object" |
              grep -oE "(call +[0-9a-f]+ <|R_X86_64_PLT32 +)$pattern" |
              sed -E 's/^(call +[0-9a-f]+ <|R_X86_64_PLT32 +)//' |
              grep -vE "^(_ZN9tensorops4simd(3exp|3log)I|_ZN9tensorops4simd6detail9each_lane|_ZN5xsimd6kernel(3exp|3log))" |
              sort | uniq -c || true)
      if [ -n "$calls" ]; then
        echo "== $cxx -O2 -march=$march, $type: calls left out of line"
        echo "$calls" | c++filt | cut -c1-200
        failed=1
      else
        echo "== $cxx -O2 -march=$march, $type: every helper inlined"
      fi
    done
  done
done
exit $failed
