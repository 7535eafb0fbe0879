#!/usr/bin/env bash
# Line and region coverage of the library's headers (include/tensorops) by a fuzzing corpus: builds the fuzzer with
# clang's source-based coverage (-fprofile-instr-generate -fcoverage-mapping, -O0, no sanitizers) in
# build/fuzz-coverage, runs every input of the corpus directories once (libFuzzer -runs=0), and prints llvm-cov's
# report per header and in total (also written to build/fuzz-coverage/coverage.txt).
# Usage: tools/fuzz-coverage.sh [corpus directory ...]   (default: fuzz/corpus, the seed corpus)
# A long run's corpus (fuzz/README.md) is the one to measure: the seed corpus alone reaches less.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake ninja-build clang libclang-rt-14-dev llvm libxsimd-dev

corpora=("$@")
if [ ${#corpora[@]} -eq 0 ]; then corpora=("$root/fuzz/corpus"); fi
build="$root/build/fuzz-coverage"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE= \
  "-DCMAKE_CXX_FLAGS=-march=x86-64-v3 -O0 -fprofile-instr-generate -fcoverage-mapping" \
  "-DCMAKE_EXE_LINKER_FLAGS=-fprofile-instr-generate" -DTENSOROPS_BUILD_TESTS=OFF -DTENSOROPS_BUILD_EXAMPLES=OFF \
  -DTENSOROPS_BUILD_FUZZER=ON >/dev/null
cmake --build "$build" --target tensorops_fuzzer --parallel "$(nproc)"
fuzzer="$build/fuzz/tensorops_fuzzer"
rm -rf "$build"/coverage-*.profraw "$build/shards"
# The inputs dealt into one directory of links per core, each replayed by its own process (-runs=0: every input once,
# nothing generated; a few hundred a second at -O0), one profile per process (%p).
jobs=$(nproc)
for ((j = 0; j < jobs; ++j)); do
  mkdir -p "$build/shards/$j"
  find "${corpora[@]}" -type f -print0 | awk -v RS='\0' -v ORS='\0' -v jobs="$jobs" -v j="$j" 'NR % jobs == j' |
    xargs -0 -r ln -sf -t "$build/shards/$j"
done
pids=()
for ((j = 0; j < jobs; ++j)); do
  LLVM_PROFILE_FILE="$build/coverage-%p.profraw" "$fuzzer" -runs=0 -timeout=60 -rss_limit_mb=8192 "$build/shards/$j" \
    >"$build/replay-$j.log" 2>&1 &
  pids+=($!)
done
for ((j = 0; j < jobs; ++j)); do
  wait "${pids[$j]}" || { tail -20 "$build/replay-$j.log"; exit 1; }
done
llvm-profdata merge -sparse "$build"/coverage-*.profraw -o "$build/coverage.profdata"
llvm-cov report "$fuzzer" -instr-profile="$build/coverage.profdata" "$root/include/tensorops" | tee "$build/coverage.txt"
