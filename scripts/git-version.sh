#!/bin/sh
# The version of a git checkout, for meson's vcs_tag (src/core/meson.build):
# the nearest tag vMAJOR.MINOR.PATCH as `git describe` gives it without the
# "v" (0.2.0, or 0.2.0-3-gabc1234 three commits later; -dirty with changes),
# else, before the first tag, PROJECT_VERSION+g<commit>. Fails outside a
# checkout, and meson then uses the project version.
# Usage: scripts/git-version.sh SOURCE_DIR PROJECT_VERSION
set -eu
src=$1
fallback=$2
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || exit 1
if d=$(git -C "$src" describe --tags --dirty --match 'v[0-9]*' 2>/dev/null); then
  echo "${d#v}"
else
  h=$(git -C "$src" describe --always --dirty --abbrev=7)
  echo "$fallback+g$h"
fi
