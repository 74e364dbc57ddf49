#!/usr/bin/env bash
# Renders every Kubernetes overlay offline (kubectl kustomize; no cluster)
# and checks what comes out (scripts/check_manifests.py): the kinds, the
# image, probes on /healthz, the token Secret and the policy ConfigMap
# mounted read-only, no privileged pod, host namespace, host path or
# privilege escalation, resources set, the NetworkPolicy closed. Then the
# negative fixtures under tests/fixtures/kustomize/ must be refused with
# the failures each lists, and server.json (the MCP Registry metadata) must
# have the fields the registry requires. One PASS or FAIL line per check;
# exit status 1 if any failed. Runs alone, in a few seconds:
#   scripts/check-kustomize.sh [-q] [--run BUILD_DIR]
#     -q              print only FAIL lines and the summary
#     --run BUILD_DIR also run each overlay's container as its pod would
#                     (scripts/check_pod_sandbox.py: read-only root, its uid,
#                     no capabilities; needs root and bubblewrap) with the
#                     glovebox of BUILD_DIR, and check that it serves
#                     (~30 s more)
set -uo pipefail
cd "$(dirname "$0")/.."

quiet=0
run_build=
while [ $# -gt 0 ]; do
  case "$1" in
    -q) quiet=1 ;;
    --run) run_build=${2:?--run needs a build directory}; shift ;;
    *) echo "usage: $0 [-q] [--run BUILD_DIR]" >&2; exit 2 ;;
  esac
  shift
done
failed=0
passed=0
say() { # PASS|FAIL lines on stdin, counted (call as say < <(...), not in a pipe)
  local line
  while IFS= read -r line; do
    case "$line" in
      PASS*) passed=$((passed + 1)); [ $quiet = 1 ] || echo "$line" ;;
      FAIL*) failed=$((failed + 1)); echo "$line" ;;
      *) echo "$line" ;;
    esac
  done
}

for tool in kubectl python3; do
  if ! command -v "$tool" >/dev/null; then
    echo "FAIL check-kustomize: $tool is not installed (kubectl: https://kubernetes.io/docs/tasks/tools/; python3: apt-get install python3 python3-yaml)"
    exit 1
  fi
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

expected_image() {
  case "$1" in
    deploy/kubernetes | deploy/kubernetes/overlays/base-image) echo localhost/glovebox:latest ;;
    deploy/kubernetes/overlays/full) echo localhost/glovebox:latest-full ;;
    *) echo "" ;; # an overlay of your own: any tagged glovebox image
  esac
}

render() { # dir → $tmp/<n>.yaml, or a FAIL line
  local out="$tmp/$2.yaml"
  if kubectl kustomize "$1" >"$out" 2>"$tmp/err"; then
    return 0
  fi
  say < <(echo "FAIL $1: kubectl kustomize failed: $(head -c 600 "$tmp/err")")
  return 1
}

n=0
for dir in deploy/kubernetes deploy/kubernetes/overlays/*/; do
  dir=${dir%/}
  n=$((n + 1))
  render "$dir" "$n" || continue
  image=$(expected_image "$dir")
  say < <(python3 scripts/check_manifests.py kustomize "$dir" "$tmp/$n.yaml" ${image:+--image "$image"})
  if [ -n "$run_build" ] && [ "$dir" != deploy/kubernetes ]; then
    kinds=terminal
    case "$dir" in */full) kinds=terminal,desktop,browser ;; esac
    say < <(python3 scripts/check_pod_sandbox.py "$tmp/$n.yaml" "$run_build" --kinds "$kinds" | sed -E "s#^(PASS|FAIL|SKIP) pod sandbox:#\1 $dir (run):#")
  fi
done

# The checks must be able to fail: each fixture undoes part of the base,
# and every check its expect-fail names must fail on it.
for dir in tests/fixtures/kustomize/*/; do
  dir=${dir%/}
  n=$((n + 1))
  render "$dir" "$n" || continue
  python3 scripts/check_manifests.py kustomize "$dir" "$tmp/$n.yaml" --image localhost/glovebox:latest >"$tmp/$n.out"
  missing=()
  while IFS= read -r want; do
    [ -n "$want" ] || continue
    grep -q "^FAIL $dir: .*$want" "$tmp/$n.out" || missing+=("$want")
  done <"$dir/expect-fail"
  if [ ${#missing[@]} -eq 0 ]; then
    say < <(echo "PASS $dir: refused, with each failure its expect-fail lists")
  else
    say < <(printf 'FAIL %s: these checks did not fail on it: %s\n' "$dir" "$(IFS='; '; echo "${missing[*]}")")
  fi
done

say < <(python3 scripts/check_manifests.py server-json server.json meson.build)

echo "check-kustomize: $passed passed, $failed failed"
[ $failed -eq 0 ]
