#!/usr/bin/env bash
# Builds glovebox for speed (build-bench/, --buildtype=release), installs the
# pinned reference server (npm ci in bench/), then runs every
# bench/*_bench.mjs in turn. Benchmarks print figures and never assert on
# them; the script fails only if a build fails or a benchmark reports that
# glovebox misbehaved. Results also land as JSON in build-bench/bench-results/.
#
# Usage: scripts/run-bench.sh [name ...]   e.g. scripts/run-bench.sh stdio term_parser
# Knobs: BENCH_SPAWNS (20), BENCH_CALLS (1000), BENCH_WARMUP (50).
set -uo pipefail
cd "$(dirname "$0")/.."

BENCH_BUILD=${BENCH_BUILD:-build-bench}

if [ ! -f "$BENCH_BUILD/build.ninja" ]; then
  meson setup "$BENCH_BUILD" --buildtype=release >"$BENCH_BUILD.setup.log" 2>&1 ||
    { cat "$BENCH_BUILD.setup.log"; rm -f "$BENCH_BUILD.setup.log"; exit 1; }
  rm -f "$BENCH_BUILD.setup.log"
fi
# Everything: the kinds' modules (glovebox-<kind>.so) load from beside glovebox.
ninja -C "$BENCH_BUILD" >/dev/null || { ninja -C "$BENCH_BUILD"; exit 1; }

(cd bench && npm ci --no-audit --no-fund --loglevel=error) || { echo "run-bench: npm ci failed in bench/" >&2; exit 1; }
# mobile-mcp, the android bench's peer, apart: npm ci cannot lock its
# optional per-platform binaries; without it that bench measures glovebox alone.
(cd bench/peers/mobile-mcp && npm install --no-audit --no-fund --no-package-lock --loglevel=error) ||
  echo "run-bench: mobile-mcp not installed; the android bench runs without its peer" >&2

echo "machine: $(nproc) cores, $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^model name\s*:\s*//')," \
  "$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME") ($(uname -r)), node $(node --version)"
echo "glovebox: $("$BENCH_BUILD/glovebox" version 2>/dev/null | head -1) ($BENCH_BUILD, release)"

# term_parser is a C program (tests/unit/bench_term_parser.c), not a .mjs.
run_parser=1
if [ $# -gt 0 ]; then
  benches=()
  run_parser=0
  for n in "$@"; do
    if [ "$n" = term_parser ]; then run_parser=1; continue; fi
    benches+=("bench/${n%_bench.mjs}_bench.mjs")
  done
else
  benches=(bench/*_bench.mjs)
fi

export GLOVEBOX_BUILD="$PWD/$BENCH_BUILD"
export BENCH_RESULTS_DIR="$PWD/$BENCH_BUILD/bench-results"
status=0
if [ $run_parser = 1 ]; then
  echo
  echo "== term_parser (BENCH_PARSER_MB, default 100 MB; CPU time)"
  ninja -C "$BENCH_BUILD" tests/unit/bench-term-parser >/dev/null &&
    "$BENCH_BUILD/tests/unit/bench-term-parser" "${BENCH_PARSER_MB:-100}" 3 || status=1
fi
for b in ${benches[@]+"${benches[@]}"}; do
  [ -f "$b" ] || { echo "run-bench: no such benchmark: $b" >&2; status=1; continue; }
  echo
  echo "== $(basename "$b" .mjs)"
  node "$b" || status=1
done
exit $status
