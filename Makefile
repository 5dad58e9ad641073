# Vigil: the two commands of a fresh machine are `make run` and `make test`.
SHELL := /bin/bash
NPM ?= npm
# Where model packs are pulled from. On a development machine the shared test
# models sit beside the checkout; elsewhere the manifests' upstream URLs are used.
MODEL_SOURCE ?= $(if $(wildcard ../shared/models/*.tflite),../shared/models,)

.PHONY: deps build run test bench clean install uninstall vigil-command dist check-bundles

node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

build: deps
	$(NPM) run build

# The `vigil` command of this checkout: dist/bin/vigil runs the built CLI with
# the model source `make run` uses. `make run` links it into ~/.local/bin
# (LINKDIR) when that folder is on PATH, as Debian's ~/.profile puts it once it
# exists; otherwise it prints the line that puts dist/bin on PATH.
LINKDIR ?= $(HOME)/.local/bin
vigil-command: build
	@mkdir -p dist/bin
	@printf '#!/bin/sh\n%bexec %s %s/dist/runtime/cli.js "$$@"\n' \
	  '$(if $(MODEL_SOURCE),: "$${VIGIL_MODELS__SOURCE:=$(abspath $(MODEL_SOURCE))}"; export VIGIL_MODELS__SOURCE\n,)' \
	  '$(shell command -v node)' '$(CURDIR)' > dist/bin/vigil
	@chmod 0755 dist/bin/vigil
	@if [ -n "$(LINKDIR)" ] && case ":$$PATH:" in *":$(LINKDIR):"*) true;; *) false;; esac && { [ ! -e "$(LINKDIR)/vigil" ] || [ -L "$(LINKDIR)/vigil" ]; }; then \
	  ln -sfn "$(CURDIR)/dist/bin/vigil" "$(LINKDIR)/vigil" && echo "vigil: linked $(LINKDIR)/vigil -> dist/bin/vigil; run it from this folder (the data is in ./data)"; \
	else \
	  echo "vigil: for the vigil command, type in this folder:  export PATH=\"$(CURDIR)/dist/bin:\$$PATH\""; \
	fi

## Install, build, fetch the models and run the daemon on its embedded defaults.
# The memory settings of systemd/vigil.service (see README, Benchmarks), so a daemon
# started here holds what an installed one does.
run: vigil-command
	VIGIL_MODELS__SOURCE=$(MODEL_SOURCE) MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=131072 \
	  node --max-semi-space-size=1 --expose-gc dist/runtime/cli.js serve

## The whole test suite.
test: deps
	$(NPM) test

## Speed and memory figures (a table), not a test.
bench: deps
	$(NPM) run bench

clean:
	rm -rf dist

# ---- release bundles -------------------------------------------------------------
# `make dist` builds dist/release/vigil-<version>-linux-<arch>.tar.gz for each of
# DIST_ARCHES: the runtime, production node_modules with the native parts of that
# architecture (arm64 cross-compiled here), model pack manifests, config, unit and
# install.sh. `make check-bundles` installs both and runs the arm64 one under
# emulation against the x64 one (see test/release/bundles.check.ts).
DIST_ARCHES ?= x64 arm64
RELEASE_DIR ?= dist/release

dist: build
	@for arch in $(DIST_ARCHES); do runtime/release/build-bundle.sh $$arch $(RELEASE_DIR) || exit 1; done
	@ls -l $(RELEASE_DIR)/*.tar.gz

check-bundles: dist
	npx mocha --timeout 900000 'dist/test/release/*.check.js'

# ---- installing on a gateway ---------------------------------------------------
# `sudo make install` copies the built runtime (production node_modules only)
# to $(PREFIX), the config to $(SYSCONFDIR) (never overwriting gateway.yaml),
# creates $(STATEDIR) and the system user, and installs, enables and (re)starts
# the systemd unit. With DESTDIR (packaging, tests) or without root it only
# writes the files. `make uninstall` keeps config and data unless PURGE=1.
PREFIX ?= /opt/vigil
SYSCONFDIR ?= /etc/vigil
STATEDIR ?= /var/lib/vigil
UNITDIR ?= /etc/systemd/system
UDEVRULESDIR ?= /etc/udev/rules.d
BINDIR ?= /usr/local/bin
NODE ?= $(shell command -v node)
# 1 when this run may create the user and talk to systemd and udev
LIVE := $(if $(DESTDIR),,$(if $(filter 0,$(shell id -u)),1,))
SYSTEMD_RUNNING = [ -d /run/systemd/system ]

install: $(if $(NO_BUILD),,build)
	@test -f dist/runtime/cli.js || { echo "install: nothing built; run make build" >&2; exit 1; }
	@test -n "$(NODE)" || { echo "install: node not found; set NODE=/path/to/node" >&2; exit 1; }
	@case "$(PREFIX)" in /?*) ;; *) echo "install: PREFIX must be an absolute path below /" >&2; exit 1;; esac
	@case "$(NODE)" in /root/*|/home/*) echo "install: warning: $(NODE) is in a home folder, which the unit hides (ProtectHome); install Node.js system-wide" >&2;; esac
ifeq ($(LIVE),1)
	if $(SYSTEMD_RUNNING); then systemctl stop vigil.service 2>/dev/null || true; fi
endif
	rm -rf $(DESTDIR)$(PREFIX)
	install -d -m 0755 $(DESTDIR)$(PREFIX)/dist
	cp -R dist/runtime $(DESTDIR)$(PREFIX)/dist/
	cp -R models config package.json package-lock.json README.md $(DESTDIR)$(PREFIX)/
	find runtime test/bench systemd -name '*.md' -exec cp --parents -t $(DESTDIR)$(PREFIX)/ {} +
	cp -R node_modules $(DESTDIR)$(PREFIX)/
	cd $(DESTDIR)$(PREFIX) && $(NPM) prune --omit=dev --no-audit --no-fund
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)
	install -d -m 0750 $(DESTDIR)$(SYSCONFDIR)/secrets
	install -m 0644 config/gateway.example.yaml $(DESTDIR)$(SYSCONFDIR)/gateway.example.yaml
	test -e $(DESTDIR)$(SYSCONFDIR)/gateway.yaml || install -m 0640 config/gateway.example.yaml $(DESTDIR)$(SYSCONFDIR)/gateway.yaml
	install -d -m 0750 $(DESTDIR)$(STATEDIR)
	install -d -m 0755 $(DESTDIR)$(UNITDIR) $(DESTDIR)$(UDEVRULESDIR) $(DESTDIR)$(BINDIR)
	sed -e 's|@NODE@|$(NODE)|g' -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@STATEDIR@|$(STATEDIR)|g' \
	  systemd/vigil.service > $(DESTDIR)$(UNITDIR)/vigil.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/vigil.service
	install -m 0644 systemd/99-vigil-coral.rules $(DESTDIR)$(UDEVRULESDIR)/99-vigil-coral.rules
	printf '#!/bin/sh\nexec %s %s/dist/runtime/cli.js "$$@"\n' '$(NODE)' '$(PREFIX)' > $(DESTDIR)$(BINDIR)/vigil
	chmod 0755 $(DESTDIR)$(BINDIR)/vigil
ifeq ($(LIVE),1)
	id -u vigil >/dev/null 2>&1 || useradd --system --user-group --home-dir $(STATEDIR) --no-create-home --shell /usr/sbin/nologin vigil
	chown -R vigil:vigil $(STATEDIR)
	chown root:vigil $(SYSCONFDIR)/gateway.yaml $(SYSCONFDIR)/secrets
	if command -v udevadm >/dev/null; then udevadm control --reload-rules && udevadm trigger --subsystem-match=usb --subsystem-match=apex; fi
	if $(SYSTEMD_RUNNING); then systemctl daemon-reload && systemctl enable vigil.service && systemctl restart vigil.service; fi
	@echo "installed: edit $(SYSCONFDIR)/gateway.yaml, then systemctl restart vigil; logs: journalctl -u vigil"
endif

uninstall:
ifeq ($(LIVE),1)
	if $(SYSTEMD_RUNNING); then systemctl disable --now vigil.service 2>/dev/null || true; fi
endif
	rm -f $(DESTDIR)$(UNITDIR)/vigil.service $(DESTDIR)$(UDEVRULESDIR)/99-vigil-coral.rules $(DESTDIR)$(BINDIR)/vigil
	@case "$(PREFIX)" in /?*) ;; *) echo "uninstall: PREFIX must be an absolute path below /" >&2; exit 1;; esac
	rm -rf $(DESTDIR)$(PREFIX)
ifeq ($(PURGE),1)
	rm -rf $(DESTDIR)$(SYSCONFDIR) $(DESTDIR)$(STATEDIR)
ifeq ($(LIVE),1)
	if id -u vigil >/dev/null 2>&1; then userdel vigil; fi
endif
else
	@echo "kept $(DESTDIR)$(SYSCONFDIR) and $(DESTDIR)$(STATEDIR); make uninstall PURGE=1 removes them too"
endif
ifeq ($(LIVE),1)
	if $(SYSTEMD_RUNNING); then systemctl daemon-reload; fi
	if command -v udevadm >/dev/null; then udevadm control --reload-rules; fi
endif
