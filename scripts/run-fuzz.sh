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
# harness name : seed corpus folder under fuzz/corpus/ [: contained library]
# A harness with a contained library runs in fork mode past crashes, and a
# crash whose innermost own frame is in that library is listed as the
# library's (contained: in glovebox it ends one worker process), not
# failed; any other crash, leak or reproducible timeout fails the run.
harnesses=(
  "fuzz_framing_dispatch:framing"
  "fuzz_json_in:framing"
  "fuzz_schema:schema"
  "fuzz_term_screen:term_screen"
  "fuzz_http:http"
  "fuzz_http_conn:http_conn"
  "fuzz_vnc:vnc:libgvnc-1.0.so"
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
# Harnesses of kinds this build lacks (fuzz_vnc without libgvnc) are skipped;
# FUZZ_ONLY="fuzz_vnc fuzz_http" runs only those.
built=$(ninja -C "$FUZZ_BUILD" -t targets all 2>/dev/null)
targets=()
present=()
for h in "${harnesses[@]}"; do
  if [ -n "${FUZZ_ONLY:-}" ] && ! grep -qw -- "${h%%:*}" <<<"$FUZZ_ONLY"; then
    continue
  elif grep -q "^fuzz/${h%%:*}:" <<<"$built"; then
    targets+=("fuzz/${h%%:*}")
    present+=("$h")
  else
    echo "== ${h%%:*}: not in this build (its kind is not built), skipped"
  fi
done
harnesses=("${present[@]}")
ninja -C "$FUZZ_BUILD" "${targets[@]}" || exit 1

# The stack of a crash reproducer, run once more: walking out from the
# innermost frame, past the sanitizers', libFuzzer's, libc's and GLib's
# frames (and the harness's log hook) and other libraries', the first frame
# that is either glovebox's (the harness binary, or a source file of its
# build) or library $2's (by name, or its instrumented build,
# build-fuzz-libgvnc/) decides: "contained <site>" or "own <frame>". A
# timeout that does not happen again (a loaded machine) is "gone".
classify() {
  local bin=$1 lib=$2 unit=$3 out frame fn sig=
  out=$(timeout 120 "$bin" "$unit" -timeout=20 2>&1)
  if ! grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:' <<<"$out"; then
    echo "gone"
    return
  fi
  if grep -q 'out-of-memory (used:' <<<"$out"; then
    # The whole process over -rss_limit_mb: many allocations, none
    # attributable (a leak would be LeakSanitizer's report instead).
    echo "memory"
    return
  fi
  while read -r frame; do
    if grep -qE "/$FUZZ_BUILD/|\\($PWD/$FUZZ_BUILD/" <<<"$frame"; then
      [ -n "$sig" ] && break # the library's frames end where glovebox's begin
      echo "own $(sed -E 's/^ *#[0-9]+ 0x[0-9a-f]+ //' <<<"$frame")"
      return
    elif grep -qF -e "$lib" -e "/build-fuzz-libgvnc/" <<<"$frame"; then
      # Its first three frames: function names when it has symbols, else
      # offsets in the library.
      fn=$(grep -oE ' in [A-Za-z_][A-Za-z0-9_]* ' <<<"$frame" | awk '{print $2}')
      sig+="${sig:+/}${fn:-$(grep -oE '\+0x[0-9a-f]+' <<<"$frame" | tr -d +)}"
      [ "$(tr -cd / <<<"$sig" | wc -c)" -ge 2 ] && break
    fi
  done < <(grep -E '^ *#[0-9]+ 0x' <<<"$out" |
    grep -vE '__sanitizer|fuzzer::|__interceptor_|__asan|__ubsan|__lsan|/libc\.so|/libglib-2\.0|/libgobject-2\.0| in (malloc|calloc|realloc|abort|raise|log_writer) |nptl/|signal/|stdlib/')
  if [ -n "$sig" ]; then
    echo "contained $sig"
  else
    echo "own (no frame of glovebox or $lib: see the reproducer's stack)"
  fi
}

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
  rest=${h#*:}
  seeds=fuzz/corpus/${rest%%:*}
  lib=
  [ "$rest" != "${rest#*:}" ] && lib=${rest#*:}
  corpus=$work/$name
  mkdir -p "$corpus"
  [ -d "$seeds" ] && cp -r "$seeds"/. "$corpus"/
  seeded=$(find "$corpus" -type f | wc -l)
  dict=()
  [ -f "fuzz/$name.dict" ] && dict=("-dict=fuzz/$name.dict")
  log=$work/$name.log

  prefix=fuzz/findings/$name-
  mode=()
  saved_ld=${LD_LIBRARY_PATH-}
  against=
  if [ "$lib" = libgvnc-1.0.so ] && [ -f build-fuzz-libgvnc/src/build/src/libgvnc-1.0.so.0 ]; then
    # libgvnc built with the same instrumentation (scripts/build-fuzz-libgvnc.sh).
    export LD_LIBRARY_PATH=$PWD/build-fuzz-libgvnc/src/build/src${saved_ld:+:$saved_ld}
    against=", against the instrumented libgvnc in build-fuzz-libgvnc/"
  fi
  if [ -n "$lib" ]; then
    # Past the library's crashes; each reproducer is sorted out below.
    prefix=$work/$name-artifacts/
    mkdir -p "$prefix"
    # -malloc_limit_mb: a single allocation over 256 MiB (more than any
    # glovebox makes: the largest framebuffer is a memfd) is reported where
    # it is made, so it is attributed; the worker's RLIMIT_AS (1 GiB) stops
    # such allocations in production.
    mode=(-fork=1 -ignore_crashes=1 -ignore_ooms=1 -ignore_timeouts=1 -malloc_limit_mb=256)
  fi

  echo "== $name: $per s, seeds from $seeds${lib:+, fork mode past crashes in $lib}$against"
  start=$(date +%s.%N)
  # TMPDIR: the harness keeps its data directory there; gone with $work.
  TMPDIR="$work" "$FUZZ_BUILD/fuzz/$name" "$corpus" "${dict[@]}" "${mode[@]}" \
    -max_len=65536 -max_total_time="$per" -timeout=20 -print_final_stats=1 \
    -artifact_prefix="$prefix" >"$log" 2>&1
  rc=$?
  end=$(date +%s.%N)
  contained=()
  if [ -n "$lib" ]; then
    declare -A seen=()
    own=
    for unit in "$prefix"*; do
      [ -f "$unit" ] || continue
      verdict=$(classify "$FUZZ_BUILD/fuzz/$name" "$lib" "$unit")
      case $verdict in
        gone) ;;
        memory)
          cp "$unit" "fuzz/findings/$name-rss-$(basename "$unit")"
          contained+=("$name: over the RSS limit (not attributed), reproducer fuzz/findings/$name-rss-$(basename "$unit")")
          ;;
        contained*)
          site=${verdict#contained }
          if [ -z "${seen[$site]:-}" ]; then
            seen[$site]=1
            cp "$unit" "fuzz/findings/$name-$lib-${site//\//_}"
            contained+=("$name: $lib crash (contained) at $site, reproducer fuzz/findings/$name-$lib-${site//\//_}")
          fi
          ;;
        *)
          own="${verdict#own }"
          cp "$unit" "fuzz/findings/$name-$(basename "$unit")"
          echo "crash in glovebox's code: $own; reproducer fuzz/findings/$name-$(basename "$unit")" >>"$log"
          ;;
      esac
    done
    unset seen
    rc=0
    [ -n "$own" ] && rc=1
  fi
  if [ -n "$against" ]; then
    if [ -n "$saved_ld" ]; then export LD_LIBRARY_PATH=$saved_ld; else unset LD_LIBRARY_PATH; fi
  fi

  execs=$(grep -E '^stat::number_of_executed_units:' "$log" | awk '{print $2}' | tail -1)
  execs=${execs:-$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')}
  execs=${execs:-0}
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.1f", b - a}')
  rate=$(awk -v e="$execs" -v s="$secs" 'BEGIN {printf "%d", (s > 0 ? e / s : 0)}')
  cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | awk '{print $2}')
  [ ${#contained[@]} -gt 0 ] && summaries+=("${contained[@]}")
  units=$(find "$corpus" -type f | wc -l)
  if [ "$rc" -eq 0 ]; then
    result=ok
  else
    status=1
    artifact=$(grep -oE 'Test unit written to [^ ]+' "$log" | tail -1 | sed 's/Test unit written to //')
    kind=$(grep -oE "(ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer): [a-zA-Z -]+|runtime error: .*|ALARM: .*|crash in glovebox's code: .*)" "$log" | head -1)
    result="FAILED (${kind:-exit $rc})${artifact:+, reproducer $artifact}"
    echo "---- $name log (last 60 lines; full log kept as fuzz/findings/$name.log)"
    cp "$log" "fuzz/findings/$name.log"
    tail -n 60 "$log"
    echo "----"
  fi
  summaries+=("$name: $execs execs in $secs s ($rate/s), coverage ${cov:-?} edges, corpus $seeded -> $units: $result")
done

echo "== summary"
for s in "${summaries[@]}"; do echo "$s"; done
exit $status
