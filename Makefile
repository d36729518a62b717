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

.PHONY: run test deps test-deps build release bench bench-quick clean man completions

# System packages the build and the tests use. Installed only when something is missing.
APT_PACKAGES = libsystemd-dev libsqlite3-dev pkg-config curl util-linux dbus python3-dbusmock iproute2 \
               man-db groff-base tmux

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

bench: deps
	$(SWIFT) build -c release
	$$($(SWIFT) build -c release --show-bin-path)/lull-bench

bench-quick: deps
	$(SWIFT) build -c release
	$$($(SWIFT) build -c release --show-bin-path)/lull-bench --quick

# Man pages: lullctl(1) and lulld(8) from the argument parsers (swift-argument-parser's
# generate-manual tool), lull.toml(5) from docs/configuration.md. Committed under man/.
MAN_DATE ?= 2026-11-21
man: deps
	$(SWIFT) build --product lullctl
	$(SWIFT) build --product lulld
	$(SWIFT) build --product generate-manual
	$(BIN)/generate-manual $(BIN)/lullctl --section 1 --date $(MAN_DATE) --output-directory man
	$(BIN)/generate-manual $(BIN)/lulld --section 8 --date $(MAN_DATE) --output-directory man
	# A blank line in mdoc is a warning; a paragraph break is what the help text means by it.
	sed -i 's/^$$/.Pp/' man/lullctl.1 man/lulld.8
	python3 man/md2man.py docs/configuration.md $(MAN_DATE) > man/lull.toml.5

# Shell completions for lullctl and lulld, from the argument parsers. Committed under completions/.
completions:
	$(SWIFT) build --product lullctl
	$(SWIFT) build --product lulld
	@mkdir -p completions
	for tool in lullctl lulld; do \
		$(BIN)/$$tool --generate-completion-script bash > completions/$$tool.bash; \
		$(BIN)/$$tool --generate-completion-script zsh > completions/_$$tool; \
		$(BIN)/$$tool --generate-completion-script fish > completions/$$tool.fish; \
	done

clean:
	rm -rf .build
