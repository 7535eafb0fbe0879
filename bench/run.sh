#!/usr/bin/env bash
# Builds and runs the tensorops benchmark suite (Release, -O3 -march=x86-64-v3 on the benchmarks only; -O level:
# $TENSOROPS_BENCH_OPT).
#
#   bench/run.sh                                   # whole suite, ~3 repetitions, aggregates only
#   bench/run.sh --benchmark_filter='limit|eigen'  # any Google Benchmark flag is forwarded (later flags win)
#   bench/run.sh --benchmark_out=bench.json --benchmark_out_format=json
#   TENSOROPS_BENCH_OPT=-O2 TENSOROPS_BENCH_BUILD_DIR=build/bench-O2 bench/run.sh   # as consumers at -O2 compile it
#
# Installs the Debian packages it needs when missing (apt-get, as root or through sudo). The build goes to
# build/bench in the repository (ignored by git), or to $TENSOROPS_BENCH_BUILD_DIR.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${TENSOROPS_BENCH_BUILD_DIR:-$root/build/bench}"

# --- packages -------------------------------------------------------------------------------------
# shellcheck source=../tools/ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake g++ libbenchmark-dev libxsimd-dev libeigen3-dev libxtensor-dev libtorch-dev

# --- build ----------------------------------------------------------------------------------------
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DTENSOROPS_BUILD_BENCHMARKS=ON -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF \
  "-DTENSOROPS_BENCH_OPT_FLAGS=${TENSOROPS_BENCH_OPT:--O3}" >/dev/null
cmake --build "$build" --target tensorops_bench -j2

# --- run ------------------------------------------------------------------------------------------
# Google Benchmark prints the CPU and caches; add what it does not.
echo "machine: $(uname -sr), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs," \
  "$(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
cxx="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")"
echo "compiler: $cxx ($("$cxx" --version | head -n1)); Debian's libbenchmark warns it was 'built as DEBUG':" \
  "that concerns the library's own bookkeeping, not the timed code"

exec "$build/bench/tensorops_bench" \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_counters_tabular=false "$@"
