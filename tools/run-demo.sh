#!/usr/bin/env bash
# Builds and runs the demo: the DirectML documentation examples computed by tensorops.
# Installs the Debian packages it needs when they are missing (as root, or through sudo).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake ninja-build g++ libxsimd-dev

# Unoptimised (-O0): the demo computes the documentation's examples, a few dozen numbers each, and its one translation
# unit instantiates the whole dml layer (every operator for every data type a descriptor may name): g++ compiles it in
# ~70 CPU-seconds at -O0 against ~170 at -O1 and more at -O2/-O3 (bench/journal/2026-11-29-levels.md, "The demo").
build="$root/build/demo"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE= "-DCMAKE_CXX_FLAGS=-O0" -DTENSOROPS_BUILD_TESTS=OFF \
      -DTENSOROPS_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target directml_pages >/dev/null
exec "$build/examples/directml_pages" "$@"
