#!/usr/bin/env bash
# make image: OCI images of glovebox built with no registry. Each root file
# system comes from Debian's archive (mmdebstrap, scripts/image/rootfs.sh)
# with the .debs of DIST_DIR installed; podman builds the image FROM scratch
# around it (scripts/image/Containerfile): a non-root user (10001), the
# server on 0.0.0.0:7800 with the token from /run/secrets/glovebox-token,
# a health check on /healthz, the data directory /var/lib/glovebox a volume.
#   glovebox:VERSION        the server and terminal sessions
#   glovebox:VERSION-full   also desktops (Xvfb, openbox, OCR) and a browser
#                           (chromium, chromedriver)
# Usage: scripts/build-image.sh [DIST_DIR]
# Environment:
#   IMAGE_VARIANTS  "base full" (default) or either
#   IMAGE_STORE     podman's storage directory (--root; default podman's own)
#   IMAGE_ARCHIVE=1 also save each image as DIST_DIR/glovebox-TAG.oci.tar
#                   (podman load -i on a machine without the archive)
# Prints one line per image: its name and size.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
dist=$(realpath "${1:-dist}")
. scripts/image/rootfs.sh

core=$(ls "$dist"/glovebox_*.deb 2>/dev/null | head -n 1)
[ -n "$core" ] || { echo "glovebox: no $dist/glovebox_*.deb: run make deb first" >&2; exit 1; }
version=$(dpkg-deb -f "$core" Version)
deb_of() { ls "$dist"/"$1"_"$version"_*.deb; }

work=$(mktemp -d /tmp/glovebox-image.XXXXXX)
trap 'rm -rf "$work"' EXIT

# On these machines podman needs runc and no default ulimits.
export CONTAINERS_CONF="$root/scripts/image/containers.conf"
podman=(podman)
if [ -n "${IMAGE_STORE:-}" ]; then
  mkdir -p "$IMAGE_STORE/root" "$IMAGE_STORE/run"
  podman+=(--root "$IMAGE_STORE/root" --runroot "$IMAGE_STORE/run")
fi

# The user and the files the image adds to what the packages install.
ROOTFS_HOOKS=(
  --customize-hook='chroot "$1" useradd --uid 10001 --user-group --home-dir /var/lib/glovebox --create-home --shell /bin/bash glovebox'
  --customize-hook='chmod 0750 "$1/var/lib/glovebox"'
  --customize-hook="copy-in $root/scripts/image/healthcheck /usr/local/bin"
  --customize-hook='mv "$1/usr/local/bin/healthcheck" "$1/usr/local/bin/glovebox-healthcheck"'
  --customize-hook='mkdir -p "$1/etc/glovebox" "$1/run/secrets"'
)

build_one() { # TAG DEB... [-- APT_PACKAGE...]
  local tag=$1
  shift
  local t0=$SECONDS
  echo "glovebox: root file system for glovebox:$tag" >&2
  ROOTFS_SLIM=1 glovebox_rootfs "$work/rootfs-$tag.tar" "$@" >"$work/rootfs-$tag.log" 2>&1 || {
    tail -n 40 "$work/rootfs-$tag.log" >&2
    echo "glovebox: mmdebstrap failed for glovebox:$tag (the log's end above)" >&2
    exit 1
  }
  cp scripts/image/Containerfile "$work/Containerfile"
  "${podman[@]}" build --quiet --format docker --network none --pull=never \
    --build-arg ROOTFS="rootfs-$tag.tar" --build-arg VERSION="$version" \
    -t "glovebox:$tag" -f "$work/Containerfile" "$work" >/dev/null
  # The name deploy/kubernetes/ runs: latest, latest-full.
  "${podman[@]}" tag "glovebox:$tag" "glovebox:latest${tag#"$version"}"
  rm -f "$work/rootfs-$tag.tar"
  if [ "${IMAGE_ARCHIVE:-0}" = 1 ]; then
    "${podman[@]}" save --format oci-archive -o "$dist/glovebox-$tag.oci.tar" "glovebox:$tag"
  fi
  local size
  size=$("${podman[@]}" image inspect --format '{{.Size}}' "glovebox:$tag")
  printf 'glovebox:%s %d MB (%d s)\n' "$tag" $((size / 1000000)) $((SECONDS - t0))
}

for variant in ${IMAGE_VARIANTS:-base full}; do
  case $variant in
    base) build_one "$version" "$core" ;;
    full)
      build_one "$version-full" "$core" "$(deb_of glovebox-ocr)" "$(deb_of glovebox-desktop)" \
        "$(deb_of glovebox-browser)" -- openbox chromium chromium-driver
      ;;
    *) echo "glovebox: unknown image variant \"$variant\" (base, full)" >&2; exit 2 ;;
  esac
done
