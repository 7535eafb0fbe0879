#!/usr/bin/env bash
# Paired A/B of two trees of tensorops in one process (bench/journal/2026-11-28-house-ab.md): the old tree's headers are
# compiled with the namespace renamed (-Dtensorops=tensorops_old), so both versions' kernels live in one program and
# each case alternates between them, round by round.
# Usage: bench/ab/build.sh <old tree> [<new tree>=this checkout] [<output>=build/ab/ab]; then
#        build/ab/ab [rounds=15]  (AB_FILTER=<substring> picks cases; AB_TINY=1 runs the per-call-overhead cases;
#        AB_WIDE_SCANS=1, AB_HUGE_ROWS=1, AB_WIDE_ARGMAX=1 the scans over rows of 4 KiB-1 MiB and of 2-32 MiB and argmax
#        over rows of 4 KiB-1 MiB instead of the default set; AB_TAILS=1 SUM and MAX over rows of 3-1021 elements;
#        AB_SHORT_ROWS=1 SUM and MAX along rows of 64 B-2 KiB at 64, 16, 4 and 1 MiB; AB_NARROW_ARGMAX=1 argmax over
#        back-to-back rows of 12 B-1 KiB; AB_SCANS=1 the scans of
#        scan_ops.cpp; AB_SUITE=1 the benchmark suite's tensorops cases, as the same calls)
# A/A calibration: give the same tree twice. The -march is the benchmark suite's (x86-64-v3) unless AB_MARCH names
# another (x86-64-v4: the 512-bit paths).
# The compiled library against header-only (issue 46's target, paired): AB_NEW_COMPILED=<a build directory with
# src/libtensorops_compiled.a> compiles the new side and the driver as a plain consumer of that library (no -march;
# TENSOROPS_COMPILED=1 and the library's type mask, from its tensorops-compiled.pc) and the old side header-only at
# AB_MARCH (say native). Give the same tree twice. A measuring program only: the two sides' copies of inline functions
# outside the library's namespace (std::, xsimd) are merged by the linker, so it runs only on a CPU of AB_MARCH.
# Environment: AB_MAIN=wide_rows.cpp builds the driver of the reductions over the rows with their limits
# (bench/ab/wide_rows.cpp, which links Google Benchmark for harness.hpp's probes) instead of main.cpp; AB_OPS=reduce_ops.cpp
# compiles SUM and MAX of f32/f16/int32 alone (what wide_rows.cpp calls) instead of ops.cpp, AB_OPS=scan_ops.cpp the scans
# alone (with AB_SCANS=1 at run time; AB_COPY=1 adds each side's share of a memcpy of the case's bytes); AB_CXX (g++), AB_OPT (-O3);
# AB_JOBS=1 compiles one file at a time.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
old=${1:?old tree}
new=${2:-$here/../..}
out=${3:-$here/../../build/ab/ab}
main=${AB_MAIN:-main.cpp}
ops=${AB_OPS:-ops.cpp}
libs=()
[[ $main == main.cpp ]] || libs=(-lbenchmark)
cxx=${AB_CXX:-g++}
mkdir -p "$(dirname "$out")"
flags=(-std=c++20 "${AB_OPT:--O3}" -DNDEBUG "-march=${AB_MARCH:-x86-64-v3}" -pthread)
new_flags=("${flags[@]}")
if [[ -n ${AB_NEW_COMPILED:-} ]]; then
  compiled_cflags=$(sed -n 's/^Cflags: //p' "$AB_NEW_COMPILED/src/tensorops-compiled.pc" | grep -o -- '-DTENSOROPS_COMPILED[A-Z_]*=[0-9a-fx]*')
  # shellcheck disable=SC2206
  new_flags=(-std=c++20 "${AB_OPT:--O3}" -DNDEBUG -pthread $compiled_cflags)
  libs+=("$AB_NEW_COMPILED/src/libtensorops_compiled.a")
fi
if [[ ${AB_JOBS:-2} == 1 ]]; then
  "$cxx" "${flags[@]}" -I "$old/include" -Dtensorops=tensorops_old -DRUN=run_old -c "$here/$ops" -o "$out.old.o"
  "$cxx" "${new_flags[@]}" -I "$new/include" -DRUN=run_new -c "$here/$ops" -o "$out.new.o"
  "$cxx" "${new_flags[@]}" -I "$new/include" -c "$here/$main" -o "$out.main.o"
else
  "$cxx" "${flags[@]}" -I "$old/include" -Dtensorops=tensorops_old -DRUN=run_old -c "$here/$ops" -o "$out.old.o" &
  "$cxx" "${new_flags[@]}" -I "$new/include" -DRUN=run_new -c "$here/$ops" -o "$out.new.o" &
  "$cxx" "${new_flags[@]}" -I "$new/include" -c "$here/$main" -o "$out.main.o"
  wait
fi
"$cxx" "${new_flags[@]}" "$out.main.o" "$out.old.o" "$out.new.o" "${libs[@]}" -o "$out"
echo "built $out"
