#!/usr/bin/env bash
# Measures how long a translation unit that includes <tensorops/tensorops.hpp> takes to compile
# (wall clock, best of 3, compile only: -c), with g++ and clang++, -std=c++20 -O2, at the baseline
# target and at -march=x86-64-v3, and prints a markdown table.
#
#   bench/compile_time.sh            # print the table
#   bench/compile_time.sh --write    # also put it into bench/RESULTS.md between the compile-time markers
#
# Environment (mostly for testing the script itself):
#   TENSOROPS_CT_INCLUDE_DIR  directory holding tensorops/tensorops.hpp (default: the repository's include/)
#   TENSOROPS_CT_MAIN         body of main() (default: something trivial from the public API)
#   TENSOROPS_CT_REPEAT       repetitions per configuration (default 3)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
include_dir="${TENSOROPS_CT_INCLUDE_DIR:-$root/include}"
main_body="${TENSOROPS_CT_MAIN:-return sizeof(tensorops::error) == 0 ? 1 : 0;}"
repeat="${TENSOROPS_CT_REPEAT:-3}"
write=0
for arg in "$@"; do
  case "$arg" in
    --write) write=1 ;;
    *) echo "compile_time.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

if [ ! -f "$include_dir/tensorops/tensorops.hpp" ]; then
  echo "compile_time.sh: $include_dir/tensorops/tensorops.hpp does not exist (yet)" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tu="$work/tu.cpp"
printf '#include <tensorops/tensorops.hpp>\nint main() { %s }\n' "$main_body" >"$tu"

now_ns() { date +%s%N; }

# best_of CXX FLAGS... : prints the best wall-clock seconds of $repeat compilations
best_of() {
  local cxx="$1"
  shift
  local best="" start end elapsed
  for ((i = 0; i < repeat; ++i)); do
    start=$(now_ns)
    "$cxx" -std=c++20 -O2 "$@" -I"$include_dir" -c "$tu" -o "$work/tu.o"
    end=$(now_ns)
    elapsed=$((end - start))
    if [ -z "$best" ] || [ "$elapsed" -lt "$best" ]; then best=$elapsed; fi
  done
  awk -v ns="$best" 'BEGIN { printf "%.2f", ns / 1e9 }'
}

# preprocessed_lines CXX FLAGS... : lines after preprocessing (a rough measure of what the TU pulls in)
preprocessed_lines() {
  local cxx="$1"
  shift
  "$cxx" -std=c++20 -O2 "$@" -I"$include_dir" -E "$tu" | wc -l | tr -d ' '
}

table="$work/table.md"
{
  echo "| compiler | flags | compile time (s, best of $repeat) | preprocessed lines |"
  echo "| --- | --- | ---: | ---: |"
  for cxx in g++ clang++; do
    if ! command -v "$cxx" >/dev/null 2>&1; then
      echo "| $cxx | (not installed) | | |"
      continue
    fi
    version="$("$cxx" --version | head -n1 | sed -E 's/.* ([0-9]+\.[0-9]+\.[0-9]+).*/\1/')"
    for arch in "" "-march=x86-64-v3"; do
      # shellcheck disable=SC2086  # $arch is empty or one flag
      seconds="$(best_of "$cxx" $arch)"
      # shellcheck disable=SC2086
      lines="$(preprocessed_lines "$cxx" $arch)"
      echo "| $cxx $version | \`-std=c++20 -O2${arch:+ $arch}\` | $seconds | $lines |"
    done
  done
} >"$table"

echo "Translation unit: \`#include <tensorops/tensorops.hpp>\` + \`int main() { $main_body }\`, compiled with -c;" \
  "$(date -u +%Y-%m-%d), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs (shared)."
echo
cat "$table"

if ((write)); then
  results="$root/bench/RESULTS.md"
  begin='<!-- compile-time:begin -->'
  end='<!-- compile-time:end -->'
  if ! grep -qF "$begin" "$results" || ! grep -qF "$end" "$results"; then
    echo "compile_time.sh: $results lacks the markers $begin / $end" >&2
    exit 1
  fi
  {
    echo "Translation unit: \`#include <tensorops/tensorops.hpp>\` + \`int main() { $main_body }\`, compiled with" \
      "\`-c\`, measured $(date -u +%Y-%m-%d) by \`bench/compile_time.sh\`."
    echo
    cat "$table"
  } >"$work/section.md"
  awk -v begin="$begin" -v end="$end" -v section="$work/section.md" '
    $0 == begin { print; while ((getline line < section) > 0) print line; skipping = 1; next }
    $0 == end { skipping = 0 }
    !skipping { print }
  ' "$results" >"$work/RESULTS.md"
  cp "$work/RESULTS.md" "$results"
  echo "compile_time.sh: updated $results" >&2
fi
