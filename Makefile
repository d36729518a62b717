# Lull — the two commands that matter:
#   make run    build and start lulld on embedded defaults (user instance)
#   make test   build everything and run the whole test suite
# Both install what they need on a fresh Debian 12 machine first.

SWIFT      ?= swift
CONFIG     ?= debug
BUILD_FLAGS = -c $(CONFIG)
BIN         = $(shell $(SWIFT) build $(BUILD_FLAGS) --show-bin-path 2>/dev/null)
PREFIX     ?= /usr/local
DESTDIR    ?=

.PHONY: run test deps test-deps build release bench bench-deps bench-quick clean

# System packages the build and the tests use. Installed only when something is missing.
APT_PACKAGES = libsystemd-dev libsqlite3-dev pkg-config curl util-linux dbus python3-dbusmock iproute2

# What `make bench` adds: the peers it measures Lull against (task-spooler, nq, nginx).
BENCH_APT_PACKAGES = task-spooler nq nginx

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Python packages the tests use: a third-party tus server for upload interoperability.
PIP_PACKAGES = tuspyserver uvicorn prometheus_client

test-deps: deps
	@python3 -c "import tuspyserver, uvicorn, prometheus_client" 2>/dev/null || { \
		echo "installing python packages: $(PIP_PACKAGES)"; \
		python3 -m pip install --quiet $(PIP_PACKAGES); }

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release:
	$(MAKE) build CONFIG=release

run: deps
	$(SWIFT) build -c release --product lulld
	$$($(SWIFT) build -c release --show-bin-path)/lulld

test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel

bench-deps:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_APT_PACKAGES)"

bench: bench-deps
	$(SWIFT) build -c release
	$$($(SWIFT) build -c release --show-bin-path)/lull-bench

bench-quick: bench-deps
	$(SWIFT) build -c release
	$$($(SWIFT) build -c release --show-bin-path)/lull-bench --quick

clean:
	rm -rf .build
