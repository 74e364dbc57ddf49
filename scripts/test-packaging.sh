#!/usr/bin/env bash
# make test-packaging: the Debian packages and the OCI images proven end to
# end, on a machine with the Debian archive reachable (docs/packaging.md):
#   make deb and lintian; the core package's installed size;
#   apt-get install ./dist/*.deb into a fresh Debian 12 root (mmdebstrap),
#   then glovebox --version and glovebox doctor there;
#   make image; podman run ... glovebox --version; no token → no server;
#   /healthz over HTTP on loopback inside the container's network namespace,
#   the time to healthy, the token the server reads from the secret file;
#   the -full image's kinds; the Kubernetes manifests when
#   scripts/check-kustomize.sh exists.
# One PASS/FAIL line per check; exit status 1 when any failed. Everything it
# makes (the packages, roots, containers, images and podman's storage) lives
# in one temporary directory removed at the end.
# Environment: PACKAGING_KEEP=1 keeps that directory (its path is printed).
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD
. scripts/image/rootfs.sh

t_start=$SECONDS
work=$(mktemp -d /tmp/glovebox-packaging.XXXXXX)
dist="$work/dist"
logs="$work/logs"
store="$work/store"
mkdir -p "$logs"
export CONTAINERS_CONF="$root/scripts/image/containers.conf"
podman=(podman --root "$store/root" --runroot "$store/run")

cleanup() {
  if [ -d "$store" ]; then
    "${podman[@]}" rm -af -t 0 >/dev/null 2>&1
    "${podman[@]}" rmi -af >/dev/null 2>&1
    "${podman[@]}" system reset -f >/dev/null 2>&1
  fi
  # Whatever podman or mmdebstrap left mounted under the directory.
  grep -o " $work[^ ]*" /proc/mounts 2>/dev/null | sort -r | while read -r m; do
    umount -l "$m" 2>/dev/null
  done
  if [ "${PACKAGING_KEEP:-0}" = 1 ]; then
    echo "test-packaging: kept $work"
  else
    rm -rf "$work"
  fi
}
trap cleanup EXIT

passed=0
failed=0
pass() {
  echo "PASS $*"
  passed=$((passed + 1))
}
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
# The end of a step's log, indented, after its FAIL line.
show() { tail -n "${2:-25}" "$1" | sed 's/^/    /'; }

# 1. make deb (what `make deb` runs, into the private dist/), lintian.
if scripts/build-deb.sh "$dist" >"$logs/deb.log" 2>&1; then
  pass "make deb: $(ls "$dist"/*.deb | wc -l) packages ($(cd "$dist" && ls *.deb | tr '\n' ' '))"
else
  fail "make deb"
  show "$logs/deb.log"
  echo "test-packaging: nothing more to test without packages"
  exit 1
fi
lint_e=$(grep -c '^E: ' "$dist/lintian.txt")
lint_w=$(grep -c '^W: ' "$dist/lintian.txt")
if [ "$lint_e" -eq 0 ]; then
  pass "lintian: 0 errors, $lint_w warnings"
else
  fail "lintian: $lint_e errors"
  grep '^E: ' "$dist/lintian.txt" | sed 's/^/    /'
fi
version=$(dpkg-deb -f "$dist"/glovebox_*.deb Version)
size_kb=$(dpkg-deb -f "$dist"/glovebox_*.deb Installed-Size)
if [ "$size_kb" -le 5120 ]; then
  pass "glovebox's installed size: $size_kb KB (at most 5120)"
else
  fail "glovebox's installed size: $size_kb KB (more than 5120)"
fi

# 2. A fresh Debian 12 root: apt-get install ./dist/*.deb (recommended
# packages too, as apt does by default), then glovebox in it. The hooks run
# with /proc and /dev mounted; the root is thrown away after them.
root_out="$logs/root"
mkdir -p "$root_out"
ROOTFS_HOOKS=(
  --customize-hook="chroot \"\$1\" glovebox --version >$root_out/version.txt 2>&1"
  --customize-hook="chroot \"\$1\" glovebox doctor >$root_out/doctor.txt 2>&1; echo \$? >$root_out/doctor.rc"
  --customize-hook="chroot \"\$1\" sh -c 'ls /usr/share/man/man1/glovebox.1.gz /usr/share/man/man5/glovebox-policy.5.gz /usr/share/bash-completion/completions/glovebox /usr/lib/systemd/user/glovebox.service /usr/lib/systemd/user/glovebox.socket /usr/share/doc/glovebox/copyright /usr/lib/*/glovebox/glovebox-vnc-worker' >$root_out/files.txt 2>&1"
)
t0=$SECONDS
if ROOTFS_RECOMMENDS=1 glovebox_rootfs /dev/null "$dist"/*.deb >"$logs/root.log" 2>&1 &&
  grep -q '^Setting up glovebox ' "$logs/root.log"; then
  pass "apt-get install ./dist/*.deb into a fresh Debian 12 root ($((SECONDS - t0)) s)"
else
  fail "apt-get install ./dist/*.deb into a fresh Debian 12 root"
  show "$logs/root.log"
fi
if [ "$(cat "$root_out/version.txt" 2>/dev/null)" = "glovebox $version" ]; then
  pass "glovebox --version in the root: glovebox $version (the package's version)"
else
  fail "glovebox --version in the root: expected \"glovebox $version\", got \"$(cat "$root_out/version.txt" 2>/dev/null)\""
fi
if [ "$(cat "$root_out/doctor.rc" 2>/dev/null)" = 0 ] &&
  grep -q '^terminal *ready' "$root_out/doctor.txt" && grep -q '^desktop *ready' "$root_out/doctor.txt"; then
  pass "glovebox doctor in the root: every kind ready ($(grep -c ' ready$' "$root_out/doctor.txt") kinds)"
else
  fail "glovebox doctor in the root (exit $(cat "$root_out/doctor.rc" 2>/dev/null))"
  show "$root_out/doctor.txt"
fi
if [ "$(wc -l <"$root_out/files.txt" 2>/dev/null)" = 7 ] && ! grep -q 'No such' "$root_out/files.txt"; then
  pass "man pages, bash completion, user units (service, socket), copyright, the VNC worker installed"
else
  fail "installed files"
  show "$root_out/files.txt"
fi

# 3. make image (both variants) into the private storage.
if IMAGE_STORE="$store" scripts/build-image.sh "$dist" >"$logs/image.txt" 2>"$logs/image.log"; then
  pass "make image: $(tr '\n' ';' <"$logs/image.txt" | sed 's/;$//; s/;/; /g')"
else
  fail "make image"
  show "$logs/image.log"
  echo "test-packaging: $passed passed, $failed failed ($((SECONDS - t_start)) s)"
  exit 1
fi
base="glovebox:$version"
full="glovebox:$version-full"
base_mb=$(awk -v t="$base" '$1 == t {print $2}' "$logs/image.txt")
if [ -n "$base_mb" ] && [ "$base_mb" -le 150 ]; then
  pass "base image size: $base_mb MB (at most 150)"
else
  fail "base image size: ${base_mb:-?} MB (more than 150)"
fi

# 4. The images run.
# podman's own complaints (no systemd for health-check timers) go to stderr.
out=$("${podman[@]}" run --rm "$base" --version 2>"$logs/run-version.log")
if [ "$out" = "glovebox $version" ]; then
  pass "podman run $base --version: $out"
else
  fail "podman run $base --version: expected \"glovebox $version\", got \"$out\""
fi
# Without the secret file the server must not serve 0.0.0.0.
if out=$(timeout 30 "${podman[@]}" run --rm "$base" 2>&1); then
  fail "without /run/secrets/glovebox-token the image served anyway"
else
  if grep -q 'glovebox-token' <<<"$out"; then
    pass "without a token the image refuses to start: $(grep -m1 'glovebox-token' <<<"$out")"
  else
    fail "without a token: unexpected output"
    sed 's/^/    /' <<<"$out"
  fi
fi

# 5. Health and token over HTTP on loopback inside the container's network
# namespace (podman exec); from `podman run -d` to a healthy /healthz.
token_file="$work/token"
head -c 32 /dev/urandom | base64 >"$token_file"
chmod 0644 "$token_file"
# GET /mcp with or without the token: the status code.
http_status() { # CONTAINER [TOKEN]
  "${podman[@]}" exec "$1" bash -c '
    auth="X-No-Token: 1"
    [ -n "$1" ] && auth="Authorization: Bearer $1"
    exec 3<>/dev/tcp/127.0.0.1/7800 || exit 1
    printf "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\nConnection: close\r\n\r\n" "$auth" >&3
    read -r -t 5 _ code _ <&3 && echo "$code"' _ "${2:-}" 2>/dev/null
}
t0=$(date +%s%N)
cid=$("${podman[@]}" run -d --name glovebox-packaging-test \
  -v "$token_file:/run/secrets/glovebox-token:ro" "$base" 2>"$logs/run.log")
healthy_ms=
for _ in $(seq 1 200); do
  if "${podman[@]}" exec glovebox-packaging-test /usr/local/bin/glovebox-healthcheck 2>/dev/null; then
    healthy_ms=$((($(date +%s%N) - t0) / 1000000))
    break
  fi
  sleep 0.05
done
if [ -n "$healthy_ms" ]; then
  pass "GET /healthz inside the container: 200, $healthy_ms ms after podman run -d (podman exec's own cost included)"
else
  fail "GET /healthz inside the container never answered 200"
  "${podman[@]}" logs glovebox-packaging-test 2>&1 | tail -n 20 | sed 's/^/    /'
fi
if "${podman[@]}" healthcheck run glovebox-packaging-test >/dev/null 2>&1; then
  pass "podman healthcheck run (the image's HEALTHCHECK): healthy"
else
  fail "podman healthcheck run: unhealthy"
fi
no_token=$(http_status glovebox-packaging-test)
with_token=$(http_status glovebox-packaging-test "$(tr -d '\n' <"$token_file")")
if [ "$no_token" = 401 ] && [ -n "$with_token" ] && [ "$with_token" != 401 ]; then
  pass "/mcp without the token: 401; with the token from /run/secrets/glovebox-token: $with_token"
else
  fail "/mcp without the token: ${no_token:-nothing}, with it: ${with_token:-nothing}"
fi
user=$("${podman[@]}" exec glovebox-packaging-test id -u 2>/dev/null)
if [ "$user" = 10001 ]; then
  pass "the server runs as uid 10001, not root"
else
  fail "the server runs as uid ${user:-?}"
fi
"${podman[@]}" rm -f -t 2 glovebox-packaging-test >/dev/null 2>&1
# glovebox alone: from its start to a healthy /healthz, inside one container
# (no podman exec in the measure).
start_ms=$("${podman[@]}" run --rm --entrypoint bash \
  -v "$token_file:/run/secrets/glovebox-token:ro" "$base" -c '
  t0=$(date +%s%N)
  glovebox serve --http 0.0.0.0:7800 --token-file /run/secrets/glovebox-token 2>/dev/null &
  for i in $(seq 1 1000); do
    /usr/local/bin/glovebox-healthcheck 2>/dev/null && { echo $((($(date +%s%N) - t0) / 1000000)); break; }
    sleep 0.005
  done
  kill %1' 2>/dev/null)
if [ -n "$start_ms" ] && [ "$start_ms" -le 1000 ]; then
  pass "glovebox serve to a healthy /healthz in the image: $start_ms ms (at most 1000)"
else
  fail "glovebox serve to a healthy /healthz in the image: ${start_ms:-never} ms"
fi

# 6. The -full image: desktops and the browser are ready in it.
out=$("${podman[@]}" run --rm "$full" doctor 2>"$logs/run-doctor.log")
if grep -q '^terminal *ready' <<<"$out" && grep -q '^desktop *ready' <<<"$out" &&
  grep -q '^webdriver *ready' <<<"$out"; then
  pass "podman run $full doctor: terminal, desktop and webdriver ready"
else
  fail "podman run $full doctor"
  sed 's/^/    /' <<<"$out"
fi

# 7. Kubernetes manifests (scripts/check-kustomize.sh, when present).
if [ -x scripts/check-kustomize.sh ]; then
  if scripts/check-kustomize.sh >"$logs/kustomize.log" 2>&1; then
    pass "scripts/check-kustomize.sh"
  else
    fail "scripts/check-kustomize.sh"
    show "$logs/kustomize.log"
  fi
else
  echo "SKIP Kubernetes manifests: no scripts/check-kustomize.sh"
fi

echo "test-packaging: $passed passed, $failed failed ($((SECONDS - t_start)) s)"
[ "$failed" -eq 0 ]
