#!/usr/bin/env bash
# Installs the Debian packages glovebox needs, only those missing.
# Usage: scripts/deps.sh build|test|package|bench
set -euo pipefail

build_pkgs=(
  build-essential meson ninja-build pkg-config
  libuv1-dev libjansson-dev
  libfreetype-dev libfontconfig-dev fonts-dejavu-core
  libspng-dev zlib1g-dev libdeflate-dev libturbojpeg0-dev libwebp-dev libcgif-dev libavcodec-dev libavformat-dev libwebsockets-dev libwebsockets-evlib-uv fonts-unifont
  libglib2.0-dev at-spi2-core libtesseract-dev tesseract-ocr-eng libxcb1-dev libxcb-xtest0-dev libxcb-shm0-dev libxcb-xfixes0-dev libxcb-damage0-dev libxcb-randr0-dev xvfb dbus openbox
  libsqlite3-dev libssl-dev libpcre2-dev
  libcurl4-openssl-dev
  libgvnc-1.0-dev
  libgnutls28-dev
)
test_pkgs=(
  libcmocka-dev clang libclang-rt-14-dev
  nodejs npm bash vim-nox less python3 procps file
  xvfb dbus zenity gtk-3-examples libxcb1-dev x11-xserver-utils sqlite3 xclip
  adb ffmpeg
  chromium chromium-driver
  xdotool xterm
  tigervnc-standalone-server tigervnc-tools x11vnc
)

# Packages and images (make deb, make image, make test-packaging): debhelper
# builds the .debs, lintian checks them, mmdebstrap makes Debian roots from
# the archive, podman (with runc) runs the images.
package_pkgs=(debhelper dpkg-dev fakeroot lintian mmdebstrap podman runc uidmap curl python3 python3-yaml)

# The peers the desktop benchmark measures against (a process per action;
# xdotool is a test package too: the computer tests read the pointer with it).
bench_pkgs=(scrot imagemagick)

case "${1:-build}" in
  build) want=("${build_pkgs[@]}") ;;
  test) want=("${build_pkgs[@]}" "${test_pkgs[@]}") ;;
  package) want=("${build_pkgs[@]}" "${package_pkgs[@]}") ;;
  bench) want=("${build_pkgs[@]}" "${test_pkgs[@]}" "${bench_pkgs[@]}") ;;
  *) echo "usage: $0 build|test|package|bench" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
  # Node may come from outside Debian (a preinstalled node 20); accept it.
  if [ "$p" = nodejs ] || [ "$p" = npm ]; then
    command -v "${p/nodejs/node}" >/dev/null 2>&1 && continue
  fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "glovebox: installing Debian packages: ${missing[*]}" >&2
if [ "$(id -u)" -ne 0 ]; then
  echo "glovebox: run as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
