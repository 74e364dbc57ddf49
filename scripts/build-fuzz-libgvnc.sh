#!/usr/bin/env bash
# Builds libgvnc (gtk-vnc's GTK-free library) from its source with the fuzz
# build's instrumentation (clang, ASan, -fsanitize=fuzzer-no-link) into
# build-fuzz-libgvnc/, where scripts/run-fuzz.sh finds it and runs
# fuzz_vnc against it (LD_LIBRARY_PATH) instead of the system's library:
# libFuzzer then sees libgvnc's own branches, not only the worker's, and
# crash stacks name libgvnc's functions. Optional: without it fuzz_vnc
# runs against the system's uninstrumented libgvnc.
#
#   scripts/build-fuzz-libgvnc.sh <gtk-vnc source directory>
#
# The source is Debian's (apt-get source gtk-vnc, with a deb-src line in
# the apt sources), the version the system's libgvnc is. Only the library
# is built: the GTK widget, tools, examples, introspection, Vala, SASL and
# PulseAudio are left out, in a copy of the source (the given directory is
# not changed). UBSan is left out too: libgvnc's ucontext coroutines pass
# their pointer in a way it reports on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
src=${1:?usage: scripts/build-fuzz-libgvnc.sh <gtk-vnc source directory>}
[ -f "$src/src/vncconnection.c" ] || { echo "$src is not a gtk-vnc source tree" >&2; exit 1; }
out=build-fuzz-libgvnc
rm -rf "$out"
mkdir -p "$out"
cp -r "$src" "$out/src"
cd "$out/src"
# The GTK widget's half of the build (gtk+-3.0 is not needed for fuzzing):
# everything in src/meson.build from the widget's enums on, its pkg-config
# file, and the tools and examples that use it.
cut=$(grep -n "^gtk_vnc_enum_headers" src/meson.build | cut -d: -f1)
head -n $((cut - 1)) src/meson.build >src/meson.build.lib && mv src/meson.build.lib src/meson.build
python3 - <<'PY'
import re
s = open("meson.build").read()
s = re.sub(r"^gtk_dep = dependency\('gtk\+-3.0'.*$", "gtk_dep = dependency('', required: false)", s, flags=re.M)
s = re.sub(r"^subdir\('(tools|examples)'\)$", "", s, flags=re.M)
s = re.sub(r"pkg\.generate\(\n  gtk_vnc,.*?\n\)\n", "", s, flags=re.S)
open("meson.build", "w").write(s)
# The sanitizer runtimes are linked by the harness, not the library.
s = open("src/meson.build").read()
s = s.replace("gvnc_link_args += ['-Wl,--no-undefined']", "")
open("src/meson.build", "w").write(s)
PY
CC=clang meson setup build -Dintrospection=disabled -Dwith-vala=disabled -Dpulseaudio=disabled \
  -Dsasl=disabled -Db_sanitize=address -Db_lundef=false -Dwerror=false \
  -Dc_args=-fsanitize=fuzzer-no-link >setup.log 2>&1 || { cat setup.log; exit 1; }
ninja -C build src/libgvnc-1.0.so.0.0.1
ls -l "$PWD/build/src/libgvnc-1.0.so.0"
