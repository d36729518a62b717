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
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
DOCDIR     ?= $(DATADIR)/doc/lull
MANDIR     ?= $(DATADIR)/man
# systemd's directories: under PREFIX, except that /usr/local units are not searched by
# systemd, so a /usr/local install puts units under /etc (the admin's place).
ifeq ($(PREFIX),/usr)
UNITDIR     ?= /usr/lib/systemd/system
USERUNITDIR ?= /usr/lib/systemd/user
SYSUSERSDIR ?= /usr/lib/sysusers.d
TMPFILESDIR ?= /usr/lib/tmpfiles.d
POLKITDIR   ?= /usr/share/polkit-1/rules.d
DBUSDIR     ?= /usr/share/dbus-1/system.d
else
UNITDIR     ?= /etc/systemd/system
USERUNITDIR ?= /etc/systemd/user
SYSUSERSDIR ?= /etc/sysusers.d
TMPFILESDIR ?= /etc/tmpfiles.d
POLKITDIR   ?= /etc/polkit-1/rules.d
DBUSDIR     ?= /etc/dbus-1/system.d
endif
SYSCONFDIR ?= /etc
# Debian's zsh looks in vendor-completions, not site-functions (the package sets it).
ZSHCOMPDIR ?= $(DATADIR)/zsh/site-functions
# Where install-files takes lulld and lullctl from (make install builds them there).
# Static release builds (what `make install` ships and `make bench` measures) get a build folder
# of their own, so they and the dynamic `make run` / `swift build -c release` do not evict each other.
STATIC_BUILD = -c release --static-swift-stdlib --scratch-path .build-static
INSTALL_FROM ?= $(shell $(SWIFT) build -c release --scratch-path .build-static --show-bin-path 2>/dev/null)
# Set to 1 to skip systemd-sysusers/systemd-tmpfiles/daemon-reload (packaging, containers).
NO_SYSTEMD_SETUP ?=
# Binaries are stripped when installed; INSTALL_STRIP= keeps their symbols.
INSTALL_STRIP ?= -s

.PHONY: run test test-long test-python python-deps lint format deps test-deps build release bench bench-build bench-deps \
	bench-quick clean install install-files uninstall man completions deb deb-deps

# Lull's one version (CHANGELOG.md): lulld, lullctl, GET /v1/status, the Debian package and the
# Python client state it, and VersionTests fails when one of them says otherwise.
VERSION := $(shell cat VERSION)

# System packages the build and the tests use. Installed only when something is missing.
# prometheus is there for promtool, which lints /metrics; nginx puts a request-size limit in
# front of a tus server; microsocks is a SOCKS5 proxy to fetch through. The services either package would start are stopped and disabled.
# debhelper builds the packages the systemd test installs (`make deb` itself adds lintian).
APT_PACKAGES = libsystemd-dev libsqlite3-dev pkg-config curl util-linux dbus python3-dbusmock iproute2 \
	debootstrap systemd-container man-db groff-base tmux openssl prometheus nginx debhelper microsocks strace

# qemu boots the power-cut test's guest (PowerCutTests); headless, so without its recommends
# (a GTK front end, firmware, media libraries).
APT_NO_RECOMMENDS = qemu-system-x86

# What `make bench` adds: the peers it measures Lull against (task-spooler, nq, nginx, aria2).
BENCH_APT_PACKAGES = task-spooler nq nginx valgrind binutils aria2

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
		case " $$missing " in *" prometheus "*|*" nginx "*) \
			$$SUDO systemctl disable --now prometheus.service prometheus-node-exporter.service nginx.service >/dev/null 2>&1 || true; \
			$$SUDO service nginx stop >/dev/null 2>&1 || true;; \
		esac; \
	fi
	@dpkg -s $(APT_NO_RECOMMENDS) >/dev/null 2>&1 || { echo "installing: $(APT_NO_RECOMMENDS)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
			$$SUDO apt-get install -y -qq --no-install-recommends $(APT_NO_RECOMMENDS); }

# Python packages the tests use: a third-party tus server for upload interoperability, the
# Prometheus client's parser for /metrics, and schemathesis, which fuzzes the control API from
# docs/openapi.yaml.
PIP_PACKAGES = tuspyserver uvicorn prometheus_client schemathesis

test-deps: deps
	@python3 -c "import tuspyserver, uvicorn, prometheus_client, schemathesis" 2>/dev/null || { \
		echo "installing python packages: $(PIP_PACKAGES)"; \
		python3 -m pip install --quiet $(PIP_PACKAGES); }

build: deps
	$(SWIFT) build $(BUILD_FLAGS)

release:
	$(MAKE) build CONFIG=release

# lullctl too, so that the README's tour finds both in .build-static/release: the same build
# `make install` ships and the benchmarks measure.
run: deps
	$(SWIFT) build $(STATIC_BUILD) --product lulld
	$(SWIFT) build $(STATIC_BUILD) --product lullctl
	$$($(SWIFT) build $(STATIC_BUILD) --show-bin-path)/lulld

# The robustness tests (crash loop, power cuts, faults, hostile input, load, full disk) run in a quick
# form; `make test-long` (LULL_LONG_TESTS=1) runs their long form: 200 kills, 100 power cuts (25 under
# emulation), 60 s of load, a 30-minute soak.
test: test-deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --no-parallel
	$(MAKE) --no-print-directory test-python

# The Python client (clients/python), as its users get it: `pip install ./clients/python` into
# a new virtual environment, with pytest and mypy (which checks its types), then its tests
# against a real lulld from the debug build, which they start and restart themselves.
PYTHON  ?= python3
PY_VENV  = .build/python-venv

# A Python without ensurepip (Debian's own, before python3-venv) cannot make the environment.
python-deps:
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null || $(MAKE) --no-print-directory deps APT_PACKAGES=python3-venv

test-python: python-deps
	$(SWIFT) build --product lulld
	rm -rf $(PY_VENV)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check ./clients/python pytest mypy
	cd clients/python && ../../$(PY_VENV)/bin/python -m mypy --strict src/lull tests
	LULLD=$$($(SWIFT) build --show-bin-path)/lulld $(PY_VENV)/bin/python -m pytest -q clients/python/tests

test-long: test-deps
	$(SWIFT) build --build-tests
	LULL_LONG_TESTS=1 $(SWIFT) test --skip-build --no-parallel --filter 'CrashLoopTests|PowerCutTests|NetworkFaultTests|HostileInputTests|DecoderFuzzTests|LoadTests|FullDiskTests|DispatcherStoreFailureTests|ClockJump'

# swift-format, from the toolchain, with the checked-in .swift-format (120 columns, ordered imports).
FORMAT_PATHS = Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive --parallel --configuration .swift-format $(FORMAT_PATHS)

format:
	$(SWIFT) format format --in-place --recursive --parallel --configuration .swift-format $(FORMAT_PATHS)

bench-deps:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(APT_PACKAGES) $(BENCH_APT_PACKAGES)"

# The benchmarks measure the binaries `make install` ships: release builds with the Swift runtime
# linked in (a static lullctl starts in about two thirds of the time of a dynamic one). Product
# by product, because GRDB's dynamic library product cannot take a static runtime.
BENCH_PRODUCTS = lulld lullctl lull-submit-floor lull-parsed-floor lull-bench

bench-build: bench-deps
	for product in $(BENCH_PRODUCTS); do $(SWIFT) build $(STATIC_BUILD) --product $$product || exit 1; done

bench: bench-build
	$$($(SWIFT) build $(STATIC_BUILD) --show-bin-path)/lull-bench

bench-quick: bench-build
	$$($(SWIFT) build $(STATIC_BUILD) --show-bin-path)/lull-bench --quick

# Release binaries with the Swift runtime linked in (no /opt/swift needed on the target),
# then everything else. PREFIX=/usr for a distribution layout; DESTDIR for staging.
install: deps
	$(SWIFT) build $(STATIC_BUILD) --product lulld
	$(SWIFT) build $(STATIC_BUILD) --product lullctl
	$(MAKE) install-files

install-files:
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(UNITDIR) $(DESTDIR)$(USERUNITDIR) \
		$(DESTDIR)$(SYSUSERSDIR) $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(SYSCONFDIR)/lull \
		$(DESTDIR)$(POLKITDIR) $(DESTDIR)$(DBUSDIR)
	install -m 0755 $(INSTALL_STRIP) $(INSTALL_FROM)/lulld $(INSTALL_FROM)/lullctl $(DESTDIR)$(BINDIR)/
	for unit in lulld.service lulld.socket; do \
		sed 's|/usr/bin/lulld|$(BINDIR)/lulld|g; s|/usr/bin/lullctl|$(BINDIR)/lullctl|g; s|/usr/share/doc/lull|$(DOCDIR)|g' units/$$unit > $(DESTDIR)$(UNITDIR)/$$unit; \
		sed 's|/usr/bin/lulld|$(BINDIR)/lulld|g; s|/usr/bin/lullctl|$(BINDIR)/lullctl|g; s|/usr/share/doc/lull|$(DOCDIR)|g' units/user/$$unit > $(DESTDIR)$(USERUNITDIR)/$$unit; \
		chmod 0644 $(DESTDIR)$(UNITDIR)/$$unit $(DESTDIR)$(USERUNITDIR)/$$unit; \
	done
	install -m 0644 units/lull.sysusers.conf $(DESTDIR)$(SYSUSERSDIR)/lull.conf
	install -m 0644 units/lull.tmpfiles.conf $(DESTDIR)$(TMPFILESDIR)/lull.conf
	install -m 0644 units/lull-hooks.polkit.rules $(DESTDIR)$(POLKITDIR)/50-lull-hooks.rules
	install -m 0644 units/lull.dbus-policy.conf $(DESTDIR)$(DBUSDIR)/lull.conf
	install -m 0644 examples/lull.toml examples/lull-system.toml $(DESTDIR)$(DOCDIR)/examples/
	install -m 0644 units/lull-jobs.polkit.rules $(DESTDIR)$(DOCDIR)/examples/50-lull-jobs.rules
	install -m 0644 README.md CHANGELOG.md docs/*.md $(DESTDIR)$(DOCDIR)/
	@# The system instance's example (the laptop one is for ~/.config), a starting point, never
	@# written over an admin's file.
	[ -e $(DESTDIR)$(SYSCONFDIR)/lull/lull.toml ] || install -m 0644 examples/lull-system.toml $(DESTDIR)$(SYSCONFDIR)/lull/lull.toml
	@# Man pages and completions when the tree has them (man/ is generated elsewhere).
	for page in man/*.[158]; do \
		[ -e "$$page" ] || continue; \
		section=$${page##*.}; install -d $(DESTDIR)$(MANDIR)/man$$section; \
		install -m 0644 "$$page" $(DESTDIR)$(MANDIR)/man$$section/; \
	done
	@# The bash completion is sourced, not run: no #! line (lintian's bash-completion-with-hashbang).
	if $(INSTALL_FROM)/lullctl --generate-completion-script bash >/dev/null 2>&1; then \
		install -d $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(ZSHCOMPDIR) \
			$(DESTDIR)$(DATADIR)/fish/vendor_completions.d; \
		$(INSTALL_FROM)/lullctl --generate-completion-script bash | sed '1{/^#!/d}' \
			> $(DESTDIR)$(DATADIR)/bash-completion/completions/lullctl; \
		$(INSTALL_FROM)/lullctl --generate-completion-script zsh > $(DESTDIR)$(ZSHCOMPDIR)/_lullctl; \
		$(INSTALL_FROM)/lullctl --generate-completion-script fish > $(DESTDIR)$(DATADIR)/fish/vendor_completions.d/lullctl.fish; \
	fi
	@# On a live system (no DESTDIR): create the user and directories, tell systemd, and have the
	@# bus read its policy again now that user lull exists (lull.conf names it).
	if [ -z "$(DESTDIR)" ] && [ -z "$(NO_SYSTEMD_SETUP)" ] && [ -d /run/systemd/system ]; then \
		systemd-sysusers $(SYSUSERSDIR)/lull.conf && systemd-tmpfiles --create $(TMPFILESDIR)/lull.conf && \
		systemctl daemon-reload && { systemctl reload dbus.service 2>/dev/null || \
			echo "note: reload the system bus (systemctl reload dbus) for lull.conf to take effect" >&2; }; \
	fi

# On a live system (no DESTDIR, systemd running, no NO_SYSTEMD_SETUP): stop and disable the units
# before their files go, since disabling reads their [Install] sections. Running user instances
# are stopped through each logged-in user's manager, best effort.
uninstall:
	if [ -z "$(DESTDIR)" ] && [ -z "$(NO_SYSTEMD_SETUP)" ] && [ -d /run/systemd/system ]; then \
		systemctl disable --now lulld.socket lulld.service || true; \
		systemctl --global disable lulld.socket lulld.service || true; \
		for dir in /run/user/*; do \
			name=$$(id -nu "$${dir##*/}" 2>/dev/null) || continue; \
			timeout 10 systemctl --user -M "$$name@" stop lulld.socket lulld.service >/dev/null 2>&1 || true; \
		done; \
	fi
	rm -f $(DESTDIR)$(BINDIR)/lulld $(DESTDIR)$(BINDIR)/lullctl \
		$(DESTDIR)$(UNITDIR)/lulld.service $(DESTDIR)$(UNITDIR)/lulld.socket \
		$(DESTDIR)$(USERUNITDIR)/lulld.service $(DESTDIR)$(USERUNITDIR)/lulld.socket \
		$(DESTDIR)$(SYSUSERSDIR)/lull.conf $(DESTDIR)$(TMPFILESDIR)/lull.conf $(DESTDIR)$(POLKITDIR)/50-lull-hooks.rules \
		$(DESTDIR)$(DBUSDIR)/lull.conf $(DESTDIR)$(DATADIR)/bash-completion/completions/lullctl $(DESTDIR)$(ZSHCOMPDIR)/_lullctl \
		$(DESTDIR)$(DATADIR)/fish/vendor_completions.d/lullctl.fish \
		$(DESTDIR)$(MANDIR)/man1/lullctl.1 $(DESTDIR)$(MANDIR)/man8/lulld.8 $(DESTDIR)$(MANDIR)/man5/lull.toml.5
	rm -rf $(DESTDIR)$(DOCDIR)
	if [ -z "$(DESTDIR)" ] && [ -z "$(NO_SYSTEMD_SETUP)" ] && [ -d /run/systemd/system ]; then \
		systemctl daemon-reload; systemctl reset-failed lulld.service lulld.socket 2>/dev/null || true; \
	fi
	@echo "kept: $(SYSCONFDIR)/lull (config) and /var/lib/lull (the store); remove them by hand to purge"

# The Debian package, lull_VERSION_ARCH.deb in DEB_DIR (docs/packaging.md). debian/rules lays the
# files out with install-files and debhelper writes the maintainer scripts; it runs on a staging
# copy of the tree's packaging inputs, so the tree gets no build products. Then lintian: an
# error or a warning fails the target (warnings are fixed, or overridden with a reason in
# debian/lull.lintian-overrides). The systemd test packages its debug build with DEB_BINARIES
# (lulld and lullctl from there instead of the static release build), twice, the second time
# with DEB_VERSION (a changelog entry for it is added to the staged copy), and DEB_LINTIAN=no.
DEB_DIR      ?= .build/deb
DEB_BINARIES ?=
DEB_VERSION  ?= $(VERSION)
DEB_LINTIAN  ?= yes
DEB_INPUTS    = debian units man completions docs examples README.md CHANGELOG.md VERSION Makefile

deb-deps:
	@$(MAKE) --no-print-directory deps APT_PACKAGES="debhelper $(if $(filter no,$(DEB_LINTIAN)),,lintian)"

deb: deb-deps
	@changelog=$$(dpkg-parsechangelog -S Version); [ "$$changelog" = "$(VERSION)" ] || { \
		echo "debian/changelog is at $$changelog, VERSION at $(VERSION): add a debian/changelog entry for $(VERSION)" >&2; \
		exit 1; }
	if [ -z "$(DEB_BINARIES)" ]; then \
		$(SWIFT) build $(STATIC_BUILD) --product lulld && $(SWIFT) build $(STATIC_BUILD) --product lullctl; \
	fi
	@set -e; \
	binaries=$$(cd "$(or $(DEB_BINARIES),$$($(SWIFT) build $(STATIC_BUILD) --show-bin-path))" && pwd); \
	mkdir -p $(DEB_DIR); out=$$(cd $(DEB_DIR) && pwd); stage=$$out/lull-$(DEB_VERSION); \
	rm -rf "$$stage"; mkdir -p "$$stage"; cp -a $(DEB_INPUTS) "$$stage/"; \
	if [ "$(DEB_VERSION)" != "$(VERSION)" ]; then \
		{ printf 'lull (%s) unstable; urgency=medium\n\n  * Built as %s from the tree at %s (make deb DEB_VERSION=%s).\n\n -- %s  %s\n\n' \
			"$(DEB_VERSION)" "$(DEB_VERSION)" "$(VERSION)" "$(DEB_VERSION)" "$$(dpkg-parsechangelog -S Maintainer)" "$$(date -R)"; \
		  cat debian/changelog; } > "$$stage/debian/changelog"; \
	fi; \
	external=0; \
	if readelf -d "$$binaries/lulld" | grep -q 'NEEDED.*libswiftCore'; then \
		external=1; echo "note: $$binaries/lulld loads the Swift runtime from /opt/swift: this package is for tests only"; \
	fi; \
	(cd "$$stage" && LULL_BINARIES="$$binaries" LULL_EXTERNAL_SWIFT_RUNTIME=$$external dpkg-buildpackage -b -us -uc); \
	deb=$$out/lull_$(DEB_VERSION)_$$(dpkg --print-architecture).deb; test -f "$$deb"; \
	if [ "$(DEB_LINTIAN)" != no ]; then lintian --fail-on error,warning --display-info "$$deb"; fi; \
	echo "built $$deb"

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
	@# lulld has no subcommands: drop the parser's "subcommand" and "help" entries, and its
	@# bare EXIT STATUS, for the FILES, SIGNALS, EXIT STATUS and SEE ALSO of man/lulld.8.extra.
	sed -i '/^\.Ar subcommand$$/d; /^\.It Em help$$/,/^\.El$$/d; /^\.Sh "EXIT STATUS"$$/,$$d' man/lulld.8
	cat man/lulld.8.extra >> man/lulld.8
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
	rm -rf .build .build-static
