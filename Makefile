# PullRefresh — the two commands a newcomer needs are `make run` and `make test`.
# Both install what is missing (Debian packages, PyPI packages) before building.

SHELL := /bin/bash
export PIP_ROOT_USER_ACTION := ignore
SWIFT ?= swift
PORT ?= 8080
ARGS ?=
PYTHON ?= python3

.PHONY: run test deps browser-deps ops-deps ops-test contract-deps contract-test build build-debug lint swift-test js-test browser-test bench tsan fuzz clean esbuild-deps client client-check
.PHONY: cluster-deps cluster-test browser-test-https image-test-deps
.PHONY: soak soak-test
.PHONY: flags-doc flags-doc-check

## Every Debian package is installed only when missing, by scripts/ensure-packages.
## What the server needs to build: libmicrohttpd, zlib, brotli, hiredis, libcurl (--source),
## libxml2 (feed parsing), uchardet (undeclared feed encodings), libvips (thumbnails at /img/),
## SQLite (--database), libsodium (the owner's password hash, tokens and sessions).
BUILD_PACKAGES := libmicrohttpd-dev zlib1g-dev libbrotli-dev libhiredis-dev libcurl4-openssl-dev libxml2-dev \
  libuchardet-dev libvips-dev libsqlite3-dev libsodium-dev pkg-config
deps: ## Install the Debian packages the build needs (only those missing)
	@scripts/ensure-packages $(BUILD_PACKAGES)

## Browser-test prerequisites: Debian's chromium + fonts (Latin, and CJK so the ko/ja pages are
## drawn with real glyphs, not boxes), and the Python packages.
browser-deps: ## Install Chromium, fonts and the browser suite's Python packages
	@scripts/ensure-packages chromium fonts-liberation fonts-noto-cjk
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/browser/requirements.txt

## WebKit-suite prerequisites: Xvfb, WebKitGTK through Debian's python3-gi, pytest for
## /usr/bin/python3 (the interpreter that has gi), gcc for the touch shim.
WEBKIT_PACKAGES := xvfb xauth python3-gi gir1.2-webkit2-4.1 gir1.2-gtk-3.0 python3-pytest \
  gcc libc6-dev
.PHONY: webkit-deps webkit-test
webkit-deps: ## Install Xvfb, WebKitGTK (python3-gi) and pytest for the WebKit suite
	@scripts/ensure-packages $(WEBKIT_PACKAGES)

## Operations-test prerequisites: openssl, promtool (prometheus), nginx, curl, chromium, systemd-analyze.
OPS_PACKAGES := openssl prometheus nginx curl chromium systemd
ops-deps: ## Install openssl, promtool, nginx, curl, chromium, systemd-analyze and Python packages
	@scripts/ensure-packages $(OPS_PACKAGES)
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/ops/requirements.txt

## Cluster-test prerequisites: a Redis server and nginx to run (tests start their own on free ports).
cluster-deps: ## Install redis-server and nginx (tests start their own on free ports)
	@scripts/ensure-packages redis-server nginx

contract-deps: ## Install schemathesis for the API contract suite
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/contract/requirements.txt

## Debian's esbuild (0.17 on bookworm), which builds the client bundle — installed only when missing.
esbuild-deps: ## Install Debian's esbuild, which builds the client bundles
	@scripts/ensure-packages esbuild

## The client: Client/src (readable ES modules + CSS) → two minified module scripts, each with its
## source map, and one minified stylesheet. The maps are external (no `//# sourceMappingURL=`
## line: it cost the gesture 24 B of its budget); StaticFiles names each in a SourceMap header.
## - pull-to-refresh.js + .css: the reusable gesture component (entry pull-to-refresh.mjs), the
##   part with the 3,072 B gzip -9 budget. The stylesheet has no map: its link alone would cost
##   34 of the budget's gzipped bytes, and the 2 KB source reads as it is.
## - feed.js: this page's own enhancements (entry feed.mjs: relative times, …), outside the budget.
## Both are built in one esbuild run without code splitting, so each is self-contained: the page
## fetches the two in parallel and neither imports anything. The built files are committed, so a
## plain `swift run` serves a working page; `make client-check` (part of `make test`) fails when
## they are stale. Run from the folder holding Client/ and Public/ (the maps name ../Client/src/…).
ESBUILD ?= esbuild
CLIENT_SCRIPTS := pull-to-refresh feed
CLIENT_OUTPUTS := $(foreach s,$(CLIENT_SCRIPTS),$(s).js $(s).js.map) pull-to-refresh.css
CLIENT_OUTPUTS += sw.js sw.js.map
CLIENT_BUILD = $(ESBUILD) $(foreach s,$(CLIENT_SCRIPTS),Client/src/$(s).mjs) \
	--bundle --minify --format=esm --target=es2020 --charset=utf8 --sourcemap=external \
	--outdir=Public --log-level=warning && \
	$(ESBUILD) Client/src/pull-to-refresh.css --bundle --minify --charset=utf8 \
	--outdir=Public --log-level=warning && $(SW_BUILD)

## The service worker (served at /sw.js): a classic script, built after the bundles because its
## cache name carries a hash of them and of app.css (a new deployment = a new worker, sw.mjs).
SW_BUILD = $(ESBUILD) Client/src/sw.mjs --bundle --minify --target=es2020 --charset=utf8 \
	--sourcemap=external --outfile=Public/sw.js --log-level=warning \
	--define:CACHE_VERSION="\"$$(cat Public/pull-to-refresh.js Public/pull-to-refresh.css \
	Public/feed.js Public/app.css Public/icons/* | sha256sum | cut -c1-12)\""

client: esbuild-deps ## Build Client/src into Public/ (gesture bundle, feed.js, sw.js) and print their sizes
	$(CLIENT_BUILD)
	@for f in pull-to-refresh.js pull-to-refresh.css feed.js; do \
	  printf '  Public/%-20s %6d B, %5d B gzip -9\n' $$f $$(wc -c <Public/$$f) $$(gzip -9 <Public/$$f | wc -c); \
	done

## Rebuilds into a scratch copy of the tree and compares byte for byte with Public/ (esbuild's
## output is deterministic for a given version).
client-check: esbuild-deps ## Fail when the committed bundles in Public/ are not what Client/src builds to
	@scratch=$$(mktemp -d); trap 'rm -rf "$$scratch"' EXIT; \
	mkdir -p "$$scratch/Client" "$$scratch/Public" && cp -R Client/src "$$scratch/Client/" && \
	cp Public/app.css "$$scratch/Public/" && cp -R Public/icons "$$scratch/Public/" && \
	( cd "$$scratch" && $(CLIENT_BUILD) ) || exit 1; \
	stale=0; for f in $(CLIENT_OUTPUTS); do \
	  cmp -s "$$scratch/Public/$$f" "Public/$$f" || { echo "Public/$$f is stale"; stale=1; }; \
	done; \
	if [ $$stale = 1 ]; then \
	  echo "Rebuild it from Client/src with \`make client\` and commit (esbuild $$($(ESBUILD) --version))."; \
	  exit 1; \
	fi; \
	echo "Public/ bundle is up to date with Client/src (esbuild $$($(ESBUILD) --version))."

## The gesture component's size budget: Public/pull-to-refresh.js and .css, each `gzip -9` on its
## own (what a compressing proxy sends; bench/run.py --assets measures the served files the same
## way), at most GESTURE_BUDGET bytes together. Part of `make test`: a change to Client/src that
## pushes the gesture over fails the suite, not only the next bench run.
GESTURE_BUDGET := 3072
.PHONY: client-budget
client-budget: ## Fail when the gesture (pull-to-refresh.js + .css, each gzip -9) is over its 3,072 B budget
	@js=$$(gzip -9 <Public/pull-to-refresh.js | wc -c); css=$$(gzip -9 <Public/pull-to-refresh.css | wc -c); \
	total=$$((js + css)); \
	echo "gesture: pull-to-refresh.js $$js B + pull-to-refresh.css $$css B = $$total B gzip -9 (budget $(GESTURE_BUDGET) B)"; \
	if [ $$total -gt $(GESTURE_BUDGET) ]; then \
	  echo "over the gesture's budget by $$((total - $(GESTURE_BUDGET))) B: page features belong in feed.js (docs/gesture.md)"; \
	  exit 1; \
	fi

## The web app's icons (Public/icons: 192, 512 and maskable 512 PNGs, the 180 px
## apple-touch-icon, the favicon as SVG, 32 px PNG and ICO), all made from the one source
## Client/icons/icon.svg by scripts/make-icons with librsvg's rsvg-convert (librsvg2-bin). They
## are committed; `make icons-check` (part of `make test`) makes them again into a scratch
## folder and fails when a committed icon is not what the source makes.
.PHONY: icons-deps icons icons-check
icons-deps: ## Install librsvg2-bin (rsvg-convert) for the icons
	@scripts/ensure-packages librsvg2-bin
icons: icons-deps ## Make every icon in Public/icons from Client/icons/icon.svg
	scripts/make-icons Public/icons
icons-check: icons-deps ## Fail when a committed icon is not what Client/icons/icon.svg makes
	@scratch=$$(mktemp -d); trap 'rm -rf "$$scratch"' EXIT; \
	scripts/make-icons "$$scratch" || exit 1; \
	stale=0; for f in "$$scratch"/*; do \
	  cmp -s "$$f" "Public/icons/$${f##*/}" || { echo "Public/icons/$${f##*/} is stale"; stale=1; }; \
	done; \
	if [ $$stale = 1 ]; then echo "Make them from Client/icons/icon.svg with \`make icons\` and commit."; exit 1; fi; \
	echo "Public/icons are what Client/icons/icon.svg makes ($$(rsvg-convert --version))."

build: deps client ## Release build of the server (and the client bundles)
	$(SWIFT) build -c release

build-debug: deps ## Debug build with the tests, warnings as errors
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

## Serve on :8080 (override: make run PORT=9000 ARGS="--host 0.0.0.0"), keeping the feed in
## .data/pullrefresh.sqlite (git-ignored; DATABASE= to change or DATABASE="" for memory only).
## With a database, first one line on its owner: who may change the feeds, or how to set an
## owner when there is none (`pullrefresh owner status`, docs/owner.md).
DATABASE ?= .data/pullrefresh.sqlite
run: build ## Build in release mode and serve on http://127.0.0.1:8080 (PORT=, ARGS=, DATABASE=)
	@$(if $(DATABASE),mkdir -p $(dir $(DATABASE)))
	@$(if $(DATABASE),.build/release/pullrefresh owner status --database $(DATABASE) || true)
	PORT=$(PORT) .build/release/pullrefresh $(if $(DATABASE),--database $(DATABASE)) $(ARGS)

## The README's screenshots (docs/screenshots: light, dark, grid, mid-pull) from the real server in
## headless Chromium as a 390×844 phone (scripts/screenshots.py).
.PHONY: screenshots
screenshots: build-debug browser-deps ## Remake the README's screenshots in docs/screenshots (headless Chromium)
	$(PYTHON) scripts/screenshots.py --bin $(CURDIR)/.build/debug/pullrefresh --out docs/screenshots

## The same over HTTPS for phones on the LAN (scripts/run-tls): a local CA and a certificate for
## this machine's names and addresses in .tls/ (git-ignored), how to trust the CA on iOS and
## Android, then the server on 0.0.0.0:8443 (override: make run-tls PORT=9443 ARGS="…").
.PHONY: run-tls
run-tls: build ## Serve over HTTPS on 0.0.0.0:8443 for phones on the LAN (local CA in .tls/)
	@scripts/ensure-packages openssl
	PORT=$(if $(filter 8080,$(PORT)),8443,$(PORT)) scripts/run-tls $(ARGS)

## The flag reference of docs/configuration.md, made from the flag table by the binary
## (Sources/pullrefresh/Flags/FlagTable.swift); FlagDocTests in the Swift suites checks the same.
flags-doc: build-debug ## Rewrite the flag reference in docs/configuration.md from the flag table
	scripts/flags-doc .build/debug/pullrefresh docs/configuration.md

flags-doc-check: build-debug ## Fail when docs/configuration.md's flag reference is stale (make flags-doc)
	scripts/flags-doc --check .build/debug/pullrefresh docs/configuration.md

lint: ## swift format lint --strict on Package.swift, Sources and Tests
	$(SWIFT) format lint --strict --configuration .swift-format -r Package.swift Sources Tests

## The thumbnail tests write their pictures at test time with Pillow (Tests/images).
image-test-deps: ## Install Pillow, which draws the thumbnail tests' pictures
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/images/requirements.txt

## The departed-streams suite (FIN/RST noticed within 1 s) runs on its own after the rest: it
## measures the server's reaction time, which the other suites' parallel load on 2 cores
## stretched past the bound once (2.8 s) without anything being wrong in the server.
swift-test: build-debug cluster-deps image-test-deps ## Every Swift suite (swift test; StreamDepartureTests on its own after the rest)
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(CHECK_WIDTH) $(SWIFT) test --skip-build --skip StreamDepartureTests
	$(SWIFT) test --skip-build --filter StreamDepartureTests

js-test: ## The client's unit tests on Client/src (node --test Tests/js/)
	node --test Tests/js/

browser-test: build-debug browser-deps ## The Chromium suite (Tests/browser) on the served bundles
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/browser

## The same browser suite once more over HTTPS (a certificate made by openssl for the run).
browser-test-https: build-debug browser-deps ops-deps ## The Chromium suite again over HTTPS
	PTR_BROWSER_TLS=1 PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/browser

## The gesture in WebKitGTK with real (GTK-synthesized) touch events, under Xvfb.
webkit-test: build-debug webkit-deps ## The gesture in WebKitGTK with GTK touch events under Xvfb (Tests/webkit)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh /usr/bin/python3 -m pytest -q Tests/webkit

## The gesture in Gecko: headless Firefox ESR over Marionette (marionette-driver from PyPI, no
## geckodriver) with trusted touch by WebDriver actions and through APZ (Tests/gecko).
.PHONY: gecko-deps gecko-test
gecko-deps: ## Install Firefox ESR, fonts and marionette-driver
	@scripts/ensure-packages firefox-esr fonts-liberation fonts-noto-cjk
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/gecko/requirements.txt

gecko-test: build-debug gecko-deps ## The gesture in headless Firefox ESR over Marionette (Tests/gecko)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q -p no:cacheprovider Tests/gecko

## The API against its OpenAPI document (schemathesis, live server).
contract-test: build-debug contract-deps ## The API against its OpenAPI document (schemathesis, Tests/contract)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/contract

## HTTPS, metrics, logs and the deployment files against the real server, nginx and Chromium.
ops-test: build-debug ops-deps ## HTTPS, metrics, logs, deployment files, nginx (Tests/ops)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/ops

## --database against the real binary: restart after TERM and KILL, one process per file, bad
## files refused untouched, KILL during reloads with integrity_check, backup while serving.
.PHONY: store-test
store-test: build-debug ## The store of record against the real binary: restarts, locks, bad files, KILL rounds, backup (Tests/store)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/store

## Issue 32 over the wire: `pullrefresh owner …` (passwords, tokens, beside a running server),
## sign-in, sessions, CSRF, throttles, subscriptions (Tests/owner; docs/owner.md).
.PHONY: owner-test
owner-test: build-debug browser-deps ## The owner and subscriptions against the real binary: CLI, sign-in, tokens, CSRF (Tests/owner)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/owner

## Several instances on one Redis (faults, the 300-refresh storm, nginx, a browser pull through nginx).
cluster-test: build-debug cluster-deps browser-deps image-test-deps ## Several instances on one redis-server: faults, storm, nginx (Tests/cluster)
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/cluster

## The soak (Tests/soak/soak.py): two instances on a real redis-server under mixed load (page,
## API with revalidation, statics, refreshes, event streams that reconnect with Last-Event-ID)
## for SOAK_SECONDS, through a fault schedule (refresh storm, Redis restarted empty, Redis frozen,
## an instance killed -9 and restarted, idle connections, oversized bodies); prints one summary
## table and fails on any failed check. `make test` runs it for 60 s (soak-test).
SOAK_SECONDS ?= 300
soak: build-debug cluster-deps ## The soak for SOAK_SECONDS (300): two instances, mixed load, faults
	SOAK_SECONDS=$(SOAK_SECONDS) PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) Tests/soak/soak.py

soak-test: build-debug cluster-deps ## The soak for 60 s (part of make test)
	SOAK_SECONDS=60 PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) Tests/soak/soak.py

## Every suite: format lint, the committed client bundle is fresh and the gesture within its
## size budget, Swift tests (unit + live server + spec), JS unit tests (on Client/src), API
## contract, browser tests (Chromium and WebKit, on the bundle), operations tests (HTTPS,
## metrics, logs, deployment), cluster tests, the store of record (--database), and the soak
## for 60 s. The Python suites share
## one harness, Tests/harness (docs/testing.md).
test: deps lint check-links client-check client-budget icons-check flags-doc-check swift-test js-test contract-test browser-test browser-test-https webkit-test gecko-test ops-test cluster-test store-test owner-test soak-test ## Every suite (about 14 minutes); what CI runs

## The quick loop, the single test and the list of targets (docs/testing.md, CONTRIBUTING.md).
## `make check`: lint, the link check, every target listed by `make help`, and the Swift suites
## (no browser, no Python suite; StreamDepartureTests alone after the rest, as in swift-test).
## At most CHECK_WIDTH tests at once, here and in swift-test (Swift Testing's default is twice
## the cores). Many tests block a thread of Swift's pool while they wait (a socket's recv, a
## child process starting): with the default width on 2 cores, the 545 tests of December 2026
## starved the servers' own async handlers and six live-socket tests timed out at 10 s on an
## idle machine; with two, none did (65 s). CHECK_FILTER narrows the Swift part (a --filter).
.PHONY: help check check-links test-one
CHECK_FILTER ?=
CHECK_WIDTH ?= 2
help: ## List every target with its line (this list)
	@scripts/make-help $(firstword $(MAKEFILE_LIST))
check: lint check-links build-debug cluster-deps image-test-deps ## Lint, link check, make help's check, the Swift suites
	@scripts/make-help --check $(firstword $(MAKEFILE_LIST))
	$(if $(CHECK_FILTER),$(SWIFT) test --skip-build --filter '$(CHECK_FILTER)',SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(CHECK_WIDTH) $(SWIFT) test --skip-build --skip StreamDepartureTests && $(SWIFT) test --skip-build --filter StreamDepartureTests)
check-links: ## Fail on a relative link or #anchor in the repository's Markdown that does not resolve
	@scripts/check-links --self-test && scripts/check-links
test-one: ## One test of any kind: make test-one T=Suite/test | T=Tests/x/test_y.py::name | T=Tests/js/z.test.mjs
	@scripts/test-one '$(T)'

## Benchmarks: our server against a C libmicrohttpd twin, in-process render/encode, memory,
## gesture size; writes bench/RESULTS.md (BENCH_QUICK=1 for a ~1 minute run); then memory
## after sustained mixed load (bench/leak.py → bench/MEMORY.md); then compression: bytes on the
## wire vs nginx, throughput with br vs the twin, page cost per store size (bench/compression.py →
## bench/COMPRESSION.md; installs nginx and brotli when missing); then first paint and pull-to-paint
## in Chromium on an emulated slow link (bench/slowlink.py, appended to bench/COMPRESSION.md);
## then the Redis backend and the 300-refresh storm over 3 instances (bench/cluster.py →
## bench/CLUSTER.md); then thumbnails: resize CPU beside Pillow, bomb refusal, cached /img/ vs
## a static file, RSS with a full cache (bench/thumbnails.py → bench/THUMBNAILS.md); feed
## parsing: server CPU from bytes to published snapshot for a 16 MiB feed of 8,000 items beside its
## 1 MiB cut (bench/feedparse.py → bench/FEEDPARSE.md); then the store of record: --database
## against memory (bench/store.py → bench/STORE.md).
bench: deps cluster-deps ## Every benchmark; writes the results files in bench/ (about 20 minutes)
	$(PYTHON) bench/run.py
	$(PYTHON) bench/leak.py
	$(PYTHON) bench/compression.py
	$(PYTHON) bench/slowlink.py
	$(PYTHON) bench/cluster.py
	$(PYTHON) bench/events.py
	$(PYTHON) bench/instructions.py
	$(PYTHON) bench/river.py
	$(PYTHON) bench/feedparse.py
	$(PYTHON) bench/thumbnails.py
	$(PYTHON) bench/store.py

## ThreadSanitizer over the whole Swift suite (its own build in .build/tsan); any report fails.
tsan: deps ## The Swift suite under ThreadSanitizer (its own build in .build/tsan)
	SWIFT=$(SWIFT) bash fuzz/tsan.sh

## libFuzzer: the template parser and the request path, FUZZ_SECONDS each (default 60), then
## the image decode-and-resize path for FUZZ_IMAGE_SECONDS (default 600).
FUZZ_SECONDS ?= 60
fuzz: deps ## libFuzzer targets for FUZZ_SECONDS each (fuzz-image for FUZZ_IMAGE_SECONDS)
	SWIFT=$(SWIFT) bash fuzz/run.sh $(FUZZ_SECONDS)

clean: ## Remove .build
	rm -rf .build
