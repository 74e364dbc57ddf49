#!/usr/bin/env bash
# make deb: the Debian packages (debian/control) built with debhelper from
# a clean copy of the checkout (tracked and new files, not build trees),
# into dist/: the .debs, the .changes lintian reads, and lintian's report.
# Exit status nonzero when the build fails or lintian reports an error.
# Usage: scripts/build-deb.sh [DIST_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$(realpath -m "${1:-dist}")

work=$(mktemp -d /tmp/glovebox-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT

# dpkg-buildpackage writes beside the source tree: build in the copy.
src="$work/glovebox"
mkdir -p "$src"
git ls-files -co --exclude-standard -z | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | tar -cf - --null -T - | tar -xf - -C "$src"

echo "glovebox: building the Debian packages in $src" >&2
(cd "$src" && DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-parallel=$(nproc)}" \
  dpkg-buildpackage -b -us -uc --no-sign) >"$work/build.log" 2>&1 || {
  tail -n 60 "$work/build.log" >&2
  echo "glovebox: the package build failed (the log's end above)" >&2
  exit 1
}

mkdir -p "$dist"
rm -f "$dist"/*.deb "$dist"/*.changes "$dist"/*.buildinfo
mv "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$dist"/
cp "$work/build.log" "$dist/build.log"

# lintian: errors fail the build; each warning kept is explained in
# debian/*.lintian-overrides or debian/README.source.
changes=$(ls "$dist"/*.changes)
lintian --info --display-level '>=warning' "$changes" >"$dist/lintian.txt" 2>&1 || true
if grep -q '^E: ' "$dist/lintian.txt"; then
  cat "$dist/lintian.txt" >&2
  echo "glovebox: lintian reports errors" >&2
  exit 1
fi
echo "glovebox: packages in $dist:" >&2
ls -1 "$dist"/*.deb >&2
grep -E '^(W|E): ' "$dist/lintian.txt" >&2 || echo "glovebox: lintian: no errors, no warnings" >&2
