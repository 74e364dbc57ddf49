# The front door. `make run` and `make test` work on a fresh Debian 12 machine
# as root: they install what is missing, build, and go.

BUILD      ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
LISTEN     ?= 127.0.0.1:7800

.PHONY: all deps build run test bench fuzz clean format deb image test-packaging

all: build

deps:
	@scripts/deps.sh build

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=debugoptimized

build: deps $(BUILD)/build.ninja
	@ninja -C $(BUILD)

run: build
	@exec scripts/connect-help.sh "$(abspath $(BUILD))/glovebox" "$(LISTEN)" scripts/demo-policy.json

test:
	@scripts/deps.sh test
	@scripts/run-tests.sh

bench:
	@scripts/deps.sh bench
	@scripts/run-bench.sh

fuzz:
	@scripts/deps.sh test
	@FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/run-fuzz.sh

# Debian packages into dist/ (docs/packaging.md).
deb:
	@scripts/deps.sh package
	@scripts/build-deb.sh dist

# OCI images glovebox:VERSION and glovebox:VERSION-full from dist/*.deb,
# without a registry (docs/packaging.md); IMAGE_STORE: podman's storage.
image:
	@scripts/deps.sh package
	@[ -n "$$(ls dist/glovebox_*.deb 2>/dev/null)" ] || scripts/build-deb.sh dist
	@scripts/build-image.sh dist

# The packages and the image proven end to end (CI runs it after make test).
test-packaging:
	@scripts/deps.sh package
	@scripts/test-packaging.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD) dist
