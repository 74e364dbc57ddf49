#!/usr/bin/env bash
# Builds glovebox (plain and ASan+UBSan with gcc, and once more with clang,
# all with -Werror; and twice with one kind of session left out), then runs
# every suite: cmocka unit tests (on all three
# builds), end-to-end tests with the official MCP SDK and inspector, the
# official MCP conformance suite over HTTP, and a short fuzz run. Ends with
# one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0
failed=0
failures=()

count_meson() { # $1 = label, $2 = log file
  local ok fail
  ok=$(grep -E '^Ok:' "$2" | awk '{print $2}' | tail -1)
  fail=$(grep -E '^(Fail|Timeout):' "$2" | awk '{s+=$2} END {print s+0}')
  passed=$((passed + ${ok:-0}))
  failed=$((failed + ${fail:-0}))
  [ "${fail:-0}" -gt 0 ] && failures+=("$1")
  [ -z "$ok" ] && { failed=$((failed + 1)); failures+=("$1 (did not run)"); }
  return 0
}

count_tap() { # $1 = label, $2 = log file
  local ok fail cancelled
  ok=$(grep -E '^# pass ' "$2" | awk '{print $3}' | tail -1)
  fail=$(grep -E '^# fail ' "$2" | awk '{print $3}' | tail -1)
  # A test that ran out of time is "cancelled", not "failed", to node: a
  # hang must fail the run all the same.
  cancelled=$(grep -E '^# cancelled ' "$2" | awk '{print $3}' | tail -1)
  fail=$((${fail:-0} + ${cancelled:-0}))
  passed=$((passed + ${ok:-0}))
  failed=$((failed + ${fail:-0}))
  [ "${fail:-0}" -gt 0 ] && failures+=("$1")
  [ -z "$ok" ] && { failed=$((failed + 1)); failures+=("$1 (did not run)"); }
  return 0
}

count_lines() { # $1 = label, $2 = log file: one "PASS …" or "FAIL …" line per check
  local ok fail
  ok=$(grep -c '^PASS ' "$2")
  fail=$(grep -c '^FAIL ' "$2")
  passed=$((passed + ok))
  failed=$((failed + fail))
  [ "$fail" -gt 0 ] && failures+=("$1")
  [ "$ok" -eq 0 ] && [ "$fail" -eq 0 ] && { failed=$((failed + 1)); failures+=("$1 (did not run)"); }
  return 0
}

one_check() { # $1 = label, $2 = exit status
  if [ "$2" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$1"); fi
}

logs=build-logs
mkdir -p "$logs"

echo "== build"
if [ ! -f build/build.ninja ]; then meson setup build --buildtype=debugoptimized >"$logs/setup.log" 2>&1 || cat "$logs/setup.log"; fi
ninja -C build >"$logs/build.log" 2>&1 || { cat "$logs/build.log"; echo "0 passed, 1 failed"; exit 1; }
if [ ! -f build-asan/build.ninja ]; then
  meson setup build-asan --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false \
    >"$logs/setup-asan.log" 2>&1 || cat "$logs/setup-asan.log"
fi
ninja -C build-asan >"$logs/build-asan.log" 2>&1 || { cat "$logs/build-asan.log"; echo "0 passed, 1 failed"; exit 1; }
# clang warns about things gcc does not (and the other way round): the tree
# must build warning-free with both. Only the unit suite runs on this build.
if [ ! -f build-clang/build.ninja ]; then
  CC=clang meson setup build-clang --buildtype=debugoptimized >"$logs/setup-clang.log" 2>&1 ||
    cat "$logs/setup-clang.log"
fi
ninja -C build-clang >"$logs/build-clang.log" 2>&1 || { cat "$logs/build-clang.log"; echo "0 passed, 1 failed"; exit 1; }

# Builds with kinds left out (terminal, webdriver and OCR with gcc; desktop
# and android with clang) must compile warning-free and pass what
# remains: the unit suite and an end-to-end smoke run of the files that test
# a kind's absence (every e2e test says with needs() what it needs; the
# whole suite passes on each, see docs/development.md). They run in the
# background, beside the suites below, and are counted at the end.
reduced_build() { # $1 = build dir, $2 = compiler, $3 = meson options, $4... = e2e test files
  local dir=$1 compiler=$2 options=$3
  shift 3
  {
    if [ ! -f "$dir/build.ninja" ]; then
      # shellcheck disable=SC2086 # several options, one word each
      CC=$compiler meson setup "$dir" --buildtype=debugoptimized $options >"$logs/setup-$dir.log" 2>&1 ||
        cat "$logs/setup-$dir.log"
    else # a directory set up before the options changed
      # shellcheck disable=SC2086
      meson configure "$dir" $options >"$logs/setup-$dir.log" 2>&1 || cat "$logs/setup-$dir.log"
    fi
    ninja -C "$dir" >"$logs/build-$dir.log" 2>&1
    echo $? >"$logs/build-$dir.status"
    meson test -C "$dir" --suite unit --print-errorlogs >"$logs/unit-$dir.log" 2>&1
    local files=()
    for f in "$@"; do files+=("tests/e2e/tests/$f.test.mjs"); done
    GLOVEBOX_BUILD="$PWD/$dir" node --test --test-concurrency=1 --test-reporter=tap "${files[@]}" \
      >"$logs/e2e-$dir.log" 2>&1
  } &
}

echo "== npm ci (tests/e2e)"
(cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error >"../../$logs/npm.log" 2>&1) || { cat "$logs/npm.log"; echo "0 passed, 1 failed"; exit 1; }
# After npm ci: the smoke runs need tests/e2e/node_modules.
smoke=(modules protocol-lifecycle validation cli schemas policy-unknown-tools policy-matrix error-codes
  http-delete-in-flight)
reduced_build build-noterm gcc "-Dterminal=disabled -Dwebdriver=disabled -Docr=disabled" "${smoke[@]}"
reduced_noterm=$!
reduced_build build-nodesk clang "-Ddesktop=disabled -Dandroid=disabled" "${smoke[@]}" terminal-basics
reduced_nodesk=$!

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:exitcode=99"
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:exitcode=98"

echo "== unit tests"
meson test -C build --suite unit --print-errorlogs >"$logs/unit.log" 2>&1
tail -n 12 "$logs/unit.log"
count_meson "unit" "$logs/unit.log"

echo "== unit tests (ASan+UBSan)"
meson test -C build-asan --suite unit --print-errorlogs >"$logs/unit-asan.log" 2>&1
tail -n 12 "$logs/unit-asan.log"
count_meson "unit (asan)" "$logs/unit-asan.log"

echo "== unit tests (clang)"
meson test -C build-clang --suite unit --print-errorlogs >"$logs/unit-clang.log" 2>&1
tail -n 12 "$logs/unit-clang.log"
count_meson "unit (clang)" "$logs/unit-clang.log"

# The totals of a TAP log, and for each failed test or subtest (the first
# eight) the
# start of its diagnostic block: CI shows only this output, and a failure
# seen once on a busy machine must be explainable from it.
tap_summary() { # $1 = log
  grep -E '^# (tests|pass|fail|cancelled|skipped)' "$1"
  awk '/^ *not ok/ { shown++; lines = 0; on = shown <= 8 }
       on { if (lines++ < 30) print } /^ *\.\.\.$/ { on = 0 }' "$1"
}

run_e2e() { # $1 = label, $2 = build dir
  GLOVEBOX_BUILD="$PWD/$2" node --test --test-concurrency=1 --test-reporter=tap \
    tests/e2e/tests/ >"$logs/e2e-$1.log" 2>&1
  tap_summary "$logs/e2e-$1.log"
  count_tap "e2e ($1)" "$logs/e2e-$1.log"
}

echo "== end-to-end tests"
run_e2e plain build
echo "== end-to-end tests (ASan+UBSan)"
GLOVEBOX_SANITIZED=1 run_e2e asan build-asan

# The official MCP conformance suite over Streamable HTTP: one line per
# scenario, plus whether the server shut down cleanly.
run_conformance() { # $1 = label, $2 = build dir
  CONFORMANCE_NAME=$1 scripts/run-conformance.sh "$2" >"$logs/conformance-$1.log" 2>&1
  grep -E '^FAIL|^Total' "$logs/conformance-$1.log" | head -40
  count_lines "conformance ($1)" "$logs/conformance-$1.log"
}

echo "== MCP conformance suite (HTTP)"
run_conformance plain build
echo "== MCP conformance suite (HTTP, ASan+UBSan)"
run_conformance asan build-asan

echo "== builds without a kind (terminal, webdriver, OCR: gcc; desktop, android: clang)"
wait "$reduced_noterm" "$reduced_nodesk"
for dir in build-noterm build-nodesk; do
  one_check "build ($dir)" "$(cat "$logs/build-$dir.status" 2>/dev/null || echo 1)"
  grep -E '^(Ok|Fail):' "$logs/unit-$dir.log"
  count_meson "unit ($dir)" "$logs/unit-$dir.log"
  tap_summary "$logs/e2e-$dir.log"
  count_tap "e2e smoke ($dir)" "$logs/e2e-$dir.log"
done

echo "== fuzz (30 s)"
FUZZ_SECONDS=30 scripts/run-fuzz.sh >"$logs/fuzz.log" 2>&1
status=$?
sed -n "/^== summary/,\$p" "$logs/fuzz.log" | tail -n +2
one_check "fuzz" $status

if [ ${#failures[@]} -gt 0 ]; then
  echo "failed suites: ${failures[*]} (logs in $logs/)"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
