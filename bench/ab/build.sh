#!/usr/bin/env bash
# Paired A/B of two trees of tensorops in one process (bench/journal/2026-11-28-house-ab.md): the old tree's headers are
# compiled with the namespace renamed (-Dtensorops=tensorops_old), so both versions' kernels live in one program and
# each case alternates between them, round by round.
# Usage: bench/ab/build.sh <old tree> [<new tree>=this checkout] [<output>=build/ab/ab]; then
#        build/ab/ab [rounds=15]  (AB_FILTER=<substring> picks cases; AB_TINY=1 runs the per-call-overhead cases;
#        AB_WIDE_SCANS=1, AB_HUGE_ROWS=1, AB_WIDE_ARGMAX=1 the scans over rows of 4 KiB-1 MiB and of 2-32 MiB and argmax
#        over rows of 4 KiB-1 MiB instead of the default set)
# A/A calibration: give the same tree twice. The -march is the benchmark suite's (x86-64-v3) unless AB_MARCH names
# another (x86-64-v4: the 512-bit paths).
# Environment: AB_MAIN=wide_rows.cpp builds the driver of the reductions over the rows with their limits
# (bench/ab/wide_rows.cpp, which links Google Benchmark for harness.hpp's probes) instead of main.cpp; AB_OPS=reduce_ops.cpp
# compiles SUM and MAX of f32/f16/int32 alone (what wide_rows.cpp calls) instead of ops.cpp; AB_CXX (g++), AB_OPT (-O3);
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
if [[ ${AB_JOBS:-2} == 1 ]]; then
  "$cxx" "${flags[@]}" -I "$old/include" -Dtensorops=tensorops_old -DRUN=run_old -c "$here/$ops" -o "$out.old.o"
  "$cxx" "${flags[@]}" -I "$new/include" -DRUN=run_new -c "$here/$ops" -o "$out.new.o"
  "$cxx" "${flags[@]}" -I "$new/include" -c "$here/$main" -o "$out.main.o"
else
  "$cxx" "${flags[@]}" -I "$old/include" -Dtensorops=tensorops_old -DRUN=run_old -c "$here/$ops" -o "$out.old.o" &
  "$cxx" "${flags[@]}" -I "$new/include" -DRUN=run_new -c "$here/$ops" -o "$out.new.o" &
  "$cxx" "${flags[@]}" -I "$new/include" -c "$here/$main" -o "$out.main.o"
  wait
fi
"$cxx" "${flags[@]}" "$out.main.o" "$out.old.o" "$out.new.o" "${libs[@]}" -o "$out"
echo "built $out"
