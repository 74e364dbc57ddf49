#!/bin/sh
# scripts/git-version.sh, the version a checkout reports (docs/packaging.md):
# the tag without its "v", git describe's distance after it, -dirty with
# changes, PROJECT+g<commit> before the first tag, failure outside a checkout.
set -eu
script="$1/scripts/git-version.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # WHAT GOT PATTERN
  case "$2" in $3) ;; *) fail "$1: got \"$2\", expected $3" ;; esac
}
if "$script" "$tmp" 9.9.9 >/dev/null 2>&1; then fail "outside a checkout it should fail"; fi
cd "$tmp"
git init -q
git config user.email t@example.invalid
git config user.name t
echo a >f && git add f && git commit -qm one
h=$(git rev-parse --short=7 HEAD)
expect "before any tag" "$("$script" "$tmp" 0.1.0)" "0.1.0+g$h"
git tag v1.2.3
expect "on the tag" "$("$script" "$tmp" 0.1.0)" "1.2.3"
git tag not-a-version
echo b >f
expect "with changes" "$("$script" "$tmp" 0.1.0)" "1.2.3-dirty"
git commit -qam two
expect "a commit after the tag" "$("$script" "$tmp" 0.1.0)" "1.2.3-1-g*"
echo ok
