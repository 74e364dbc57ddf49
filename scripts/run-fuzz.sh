#!/usr/bin/env bash
# Builds the libFuzzer harnesses (build-fuzz/, clang, ASan+UBSan, coverage
# instrumentation in the whole library) and runs each for its share of
# FUZZ_SECONDS (default 60, split evenly). Works on a copy of the seed corpus
# in a temporary directory: the committed corpus is never written. Crash,
# leak and timeout reproducers land in fuzz/findings/ (gitignored).
# Prints one summary line per harness; exits non-zero if any harness failed.
#
# Reproduce a finding:  build-fuzz/fuzz/fuzz_<harness> fuzz/findings/<file>
# (GLOVEBOX_FUZZ_ECHO=1 shows what the server sent; GLOVEBOX_LOG=debug its log).
set -uo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_BUILD=${FUZZ_BUILD:-build-fuzz}
# harness name : seed corpus folder under fuzz/corpus/
harnesses=(
  "fuzz_framing_dispatch:framing"
  "fuzz_json_in:framing"
  "fuzz_schema:schema"
  "fuzz_term_screen:term_screen"
  "fuzz_http:http"
  "fuzz_http_conn:http_conn"
)

if ! command -v clang >/dev/null 2>&1; then
  echo "run-fuzz: clang is needed (apt-get install clang libclang-rt-14-dev, or: make fuzz)" >&2
  exit 1
fi

if [ ! -f "$FUZZ_BUILD/build.ninja" ]; then
  CC=clang meson setup "$FUZZ_BUILD" -Dfuzz=true -Db_sanitize=address,undefined \
    -Db_lundef=false -Dc_args=-fsanitize=fuzzer-no-link >"$FUZZ_BUILD.setup.log" 2>&1 ||
    { cat "$FUZZ_BUILD.setup.log"; rm -f "$FUZZ_BUILD.setup.log"; exit 1; }
  rm -f "$FUZZ_BUILD.setup.log"
fi
targets=()
for h in "${harnesses[@]}"; do targets+=("fuzz/${h%%:*}"); done
ninja -C "$FUZZ_BUILD" "${targets[@]}" || exit 1

n=${#harnesses[@]}
per=$((FUZZ_SECONDS / n))
[ "$per" -lt 1 ] && per=1

mkdir -p fuzz/findings
work=$(mktemp -d "${TMPDIR:-/tmp}/glovebox-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=1"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1"

status=0
summaries=()
for h in "${harnesses[@]}"; do
  name=${h%%:*}
  seeds=fuzz/corpus/${h#*:}
  corpus=$work/$name
  mkdir -p "$corpus"
  [ -d "$seeds" ] && cp -r "$seeds"/. "$corpus"/
  seeded=$(find "$corpus" -type f | wc -l)
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=("-dict=fuzz/$name.dict")
  log=$work/$name.log

  echo "== $name: $per s, seeds from $seeds"
  start=$(date +%s.%N)
  # TMPDIR: the harness keeps its data directory there; gone with $work.
  TMPDIR="$work" "$FUZZ_BUILD/fuzz/$name" "$corpus" "${dict[@]}" \
    -max_len=65536 -max_total_time="$per" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="fuzz/findings/$name-" >"$log" 2>&1
  rc=$?
  end=$(date +%s.%N)

  execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1)
  execs=${execs:-$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')}
  execs=${execs:-0}
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
  rate=$(awk -v e="$execs" -v s="$secs" 'BEGIN {printf "%d", (s > 0 ? e / s : 0)}')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  units=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    status=1
    artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/Test unit written to //')
    kind=$(grep -oE '(ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer): [a-zA-Z -]+|runtime error: .*|ALARM: .*)' "$log" | head -1)
    result="FAILED (${kind:-exit $rc})${artifact:+, reproducer $artifact}"
    echo "---- $name log (last 60 lines; full log kept as fuzz/findings/$name.log)"
    cp "$log" "fuzz/findings/$name.log"
    tail -n 60 "$log"
    echo "----"
  fi
  summaries+=("$name: $execs execs in $secs s ($rate/s), coverage ${cov:-?} edges, corpus $seeded -> $units: $result")
done

for s in "${summaries[@]}"; do echo "$s"; done
exit $status
