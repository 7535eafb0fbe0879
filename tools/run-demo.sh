#!/usr/bin/env bash
# Builds and runs the demo: the DirectML documentation examples computed by tensorops.
# Installs the Debian packages it needs when they are missing (as root, or through sudo).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=ensure-packages.sh
source "$root/tools/ensure-packages.sh"
ensure_packages cmake ninja-build g++ libxsimd-dev

build="$root/build/demo"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTENSOROPS_BUILD_TESTS=OFF \
      -DTENSOROPS_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target directml_pages >/dev/null
exec "$build/examples/directml_pages" "$@"
