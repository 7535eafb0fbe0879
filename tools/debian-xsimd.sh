#!/usr/bin/env bash
# Fetches Debian's libxsimd-dev of another suite than the machine's (default: trixie, which has a newer xsimd than
# bookworm's 8.1) with apt's own client, and unpacks it into build/debian-xsimd/<suite>/ without installing it: a
# private apt state (its own sources list, package lists and cache) leaves the machine's sources and packages as they
# were. Prints the prefix to give tools/test-xsimd.sh (…/usr: include/xsimd and share/cmake/xsimd).
# Its CMake package requires xtl's (find_dependency(xtl REQUIRED)): tools/test-xsimd.sh's package and tests stages
# need xtl-dev installed (bookworm's serves).
# Usage: tools/debian-xsimd.sh [suite]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
suite=${1:-trixie}
state="$root/build/debian-xsimd/$suite"
rm -rf "$state"
mkdir -p "$state/lists/partial" "$state/archives/partial" "$state/unpacked"
echo "deb http://deb.debian.org/debian $suite main" >"$state/sources.list"
apt_options=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null
             -o "Dir::State::Lists=$state/lists" -o "Dir::Cache::Archives=$state/archives"
             -o "Dir::Cache::pkgcache=$state/pkgcache.bin" -o "Dir::Cache::srcpkgcache=$state/srcpkgcache.bin"
             -o APT::Sandbox::User=root)
apt-get -qq "${apt_options[@]}" update >&2
(cd "$state" && apt-get -qq "${apt_options[@]}" download libxsimd-dev >&2)
dpkg-deb -x "$state"/libxsimd-dev_*.deb "$state/unpacked"
rm -rf "$state/lists" "$state"/*.bin  # the suite's package lists (~100 MB): only the package was wanted
[ -f "$state/unpacked/usr/include/xsimd/xsimd.hpp" ] || { echo "no xsimd headers in $suite's libxsimd-dev" >&2; exit 1; }
echo "$state/unpacked/usr"
