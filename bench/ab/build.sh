#!/usr/bin/env bash
# Paired A/B of two trees of tensorops in one process (bench/journal/2026-11-28-house-ab.md): the old tree's headers are
# compiled with the namespace renamed (-Dtensorops=tensorops_old), so both versions' kernels live in one program and
# each case alternates between them, round by round.
# Usage: bench/ab/build.sh <old tree> [<new tree>=this checkout] [<output>=build/ab/ab]; then
#        build/ab/ab [rounds=15]  (AB_FILTER=<substring> picks cases; AB_TINY=1 runs the per-call-overhead cases)
# A/A calibration: give the same tree twice. The -march is the benchmark suite's (x86-64-v3).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
old=${1:?old tree}
new=${2:-$here/../..}
out=${3:-$here/../../build/ab/ab}
mkdir -p "$(dirname "$out")"
flags=(-std=c++20 -O3 -DNDEBUG -march=x86-64-v3 -pthread)
g++ "${flags[@]}" -I "$old/include" -Dtensorops=tensorops_old -DRUN=run_old -c "$here/ops.cpp" -o "$out.old.o" &
g++ "${flags[@]}" -I "$new/include" -DRUN=run_new -c "$here/ops.cpp" -o "$out.new.o" &
g++ "${flags[@]}" -c "$here/main.cpp" -o "$out.main.o"
wait
g++ "${flags[@]}" "$out.main.o" "$out.old.o" "$out.new.o" -o "$out"
echo "built $out"
