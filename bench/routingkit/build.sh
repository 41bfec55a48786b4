#!/bin/sh
# Builds RoutingKit and the same-run driver rk_ch for bench/ch.ts, outside the repository.
#
#   bench/routingkit/build.sh [routingkit-source]
#
# routingkit-source: a RoutingKit checkout (github.com/ben-strasser/RoutingKit) or a bare git
# directory of it (exported with git archive); default $RK_SRC, else /tmp/routingkit/src if it
# already exists. Output: $RK_DIR (default /tmp/routingkit)/rk_ch, which bench/ch.ts looks for
# (or set RK_BIN). Needs g++ and zlib headers. Nothing is written inside the repository.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
RK_DIR=${RK_DIR:-/tmp/routingkit}
SRC=${1:-${RK_SRC:-}}
mkdir -p "$RK_DIR"
if [ -n "$SRC" ] && [ "$SRC" != "$RK_DIR/src" ]; then
  rm -rf "$RK_DIR/src"
  if [ -f "$SRC/HEAD" ] && [ -d "$SRC/objects" ]; then
    mkdir -p "$RK_DIR/src"
    git --git-dir="$SRC" archive HEAD | tar -x -C "$RK_DIR/src"
    git --git-dir="$SRC" rev-parse HEAD > "$RK_DIR/commit"
  else
    cp -r "$SRC" "$RK_DIR/src"
    (git -C "$SRC" rev-parse HEAD 2>/dev/null || echo unknown) > "$RK_DIR/commit"
  fi
fi
if [ ! -f "$RK_DIR/src/Makefile" ]; then
  echo "No RoutingKit source: pass a checkout (or its git directory) or set RK_SRC." >&2
  exit 1
fi
# RoutingKit's own flags (its Makefile), plus two forced includes: its 2020 contraction_hierarchy.h
# lacks <string>/<iostream>, which GCC 12 no longer pulls in transitively.
FLAGS="-Wall -DNDEBUG -march=native -ffast-math -std=c++11 -O3 -fPIC -Iinclude -include string -include iostream"
make -C "$RK_DIR/src" -j2 lib/libroutingkit.a CFLAGS="$FLAGS"
g++ -O3 -march=native -ffast-math -DNDEBUG -std=c++14 -I"$RK_DIR/src/include" -include string -include iostream \
  "$HERE/rk_ch.cpp" -o "$RK_DIR/rk_ch" "$RK_DIR/src/lib/libroutingkit.a" -lz -pthread
echo "built $RK_DIR/rk_ch (RoutingKit $(cat "$RK_DIR/commit" 2>/dev/null || echo unknown))"
