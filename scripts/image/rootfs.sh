# Sourced by scripts/build-image.sh and scripts/test-packaging.sh: a Debian 12
# root file system from the archive (mmdebstrap), glovebox's .debs installed
# into it by apt, which resolves their dependencies from the archive.
#
# glovebox_rootfs TARGET DEB... [-- APT_PACKAGE...]
#   TARGET: a tarball, a directory, or /dev/null (only the hooks' effects).
#   Extra mmdebstrap options (hooks) in the array ROOTFS_HOOKS.
#   ROOTFS_SLIM=1: no manuals, docs (but copyright files) or translations.
#   ROOTFS_RECOMMENDS=1: what the packages recommend too (apt's default).
# The apt sources are the host's (/etc/apt/sources.list.d/debian.sources when
# it exists), so a machine with a local mirror uses it.

glovebox_rootfs() {
  local target=$1
  shift
  local debs=() extra=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    debs+=("$(realpath "$1")")
    shift
  done
  [ $# -gt 0 ] && shift
  extra=("$@")
  local sources=()
  [ -f /etc/apt/sources.list.d/debian.sources ] && sources=(/etc/apt/sources.list.d/debian.sources)
  local recommends=--no-install-recommends
  [ "${ROOTFS_RECOMMENDS:-0}" = 1 ] && recommends=-oAPT::Install-Recommends=true
  local slim=()
  if [ "${ROOTFS_SLIM:-0}" = 1 ]; then
    slim=(--dpkgopt='path-exclude=/usr/share/man/*'
      --dpkgopt='path-exclude=/usr/share/doc/*'
      --dpkgopt='path-include=/usr/share/doc/*/copyright'
      --dpkgopt='path-exclude=/usr/share/locale/*'
      --dpkgopt='path-include=/usr/share/locale/locale.alias'
      --dpkgopt='path-exclude=/usr/share/info/*')
  fi
  # merged-usr: /usr merged by the hook, without the usrmerge package (which
  # brings perl, 50 MB). apt resolves the .debs' dependencies.
  mmdebstrap --variant=apt --mode=root --quiet \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    "${slim[@]}" \
    --customize-hook='mkdir -p "$1/tmp/glovebox-debs"' \
    --customize-hook="copy-in ${debs[*]} /tmp/glovebox-debs" \
    --customize-hook="chroot \"\$1\" sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y -q $recommends /tmp/glovebox-debs/*.deb ${extra[*]} >&2 && rm -rf /tmp/glovebox-debs'" \
    "${ROOTFS_HOOKS[@]}" \
    bookworm "$target" "${sources[@]}"
}
