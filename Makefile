# PullRefresh — the two commands a newcomer needs are `make run` and `make test`.
# Both install what is missing (Debian packages, PyPI packages) before building.

SHELL := /bin/bash
export PIP_ROOT_USER_ACTION := ignore
SWIFT ?= swift
PORT ?= 8080
ARGS ?=
PYTHON ?= python3
APT_UPDATED := /tmp/.pullrefresh-apt-updated

.PHONY: run test deps browser-deps contract-deps contract-test build build-debug lint swift-test js-test browser-test bench tsan fuzz clean
.PHONY: cluster-deps cluster-test

## Debian packages the server needs to build (libmicrohttpd) — installed only when missing.
deps:
	@if ! pkg-config --exists libmicrohttpd 2>/dev/null; then \
	  echo "Installing libmicrohttpd-dev (apt-get)…"; \
	  apt-get update -qq && touch $(APT_UPDATED); \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libmicrohttpd-dev pkg-config; \
	fi
	@if ! pkg-config --exists hiredis 2>/dev/null; then \
	  echo "Installing libhiredis-dev (apt-get)…"; \
	  [ -f $(APT_UPDATED) ] || { apt-get update -qq && touch $(APT_UPDATED); }; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends libhiredis-dev pkg-config; \
	fi

## Browser-test prerequisites: Debian's chromium + fonts, and the Python packages.
browser-deps:
	@if ! command -v chromium >/dev/null 2>&1 || ! fc-list 2>/dev/null | grep -qi liberation; then \
	  echo "Installing chromium and fonts (apt-get)…"; \
	  [ -f $(APT_UPDATED) ] || { apt-get update -qq && touch $(APT_UPDATED); }; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation; \
	fi
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/browser/requirements.txt

## Cluster-test prerequisites: a Redis server and nginx to run (tests start their own on free ports).
cluster-deps:
	@if ! command -v redis-server >/dev/null 2>&1 || ! { command -v nginx || [ -x /usr/sbin/nginx ]; } >/dev/null 2>&1; then \
	  echo "Installing redis-server and nginx (apt-get)…"; \
	  [ -f $(APT_UPDATED) ] || { apt-get update -qq && touch $(APT_UPDATED); }; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 --no-install-recommends redis-server nginx; \
	fi

contract-deps:
	@$(PYTHON) -m pip install -q --disable-pip-version-check -r Tests/contract/requirements.txt

build: deps
	$(SWIFT) build -c release

build-debug: deps
	$(SWIFT) build --build-tests -Xswiftc -warnings-as-errors

## Serve on :8080 (override: make run PORT=9000 ARGS="--host 0.0.0.0").
run: build
	PORT=$(PORT) .build/release/pullrefresh $(ARGS)

lint:
	$(SWIFT) format lint --strict --configuration .swift-format -r Package.swift Sources Tests

swift-test: build-debug cluster-deps
	$(SWIFT) test --skip-build

js-test:
	node --test Tests/js/

browser-test: build-debug browser-deps
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/browser

## The API against its OpenAPI document (schemathesis, live server).
contract-test: build-debug contract-deps
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/contract

## Several instances on one Redis (faults, the 300-refresh storm, nginx, a browser pull through nginx).
cluster-test: build-debug cluster-deps browser-deps
	PULLREFRESH_BIN=$(CURDIR)/.build/debug/pullrefresh $(PYTHON) -m pytest -q Tests/cluster

## Every suite: format lint, Swift tests (unit + live server + spec), JS unit tests, API contract,
## browser tests, cluster tests.
test: deps lint swift-test js-test contract-test browser-test cluster-test

## Benchmarks: our server against a C libmicrohttpd twin, in-process render/encode, memory,
## gesture size; writes bench/RESULTS.md (BENCH_QUICK=1 for a ~1 minute run); then memory
## after sustained mixed load (bench/leak.py → bench/MEMORY.md); then the Redis backend and the
## 300-refresh storm over 3 instances (bench/cluster.py → bench/CLUSTER.md).
bench: deps cluster-deps
	$(PYTHON) bench/run.py
	$(PYTHON) bench/leak.py
	$(PYTHON) bench/cluster.py

## ThreadSanitizer over the whole Swift suite (its own build in .build/tsan); any report fails.
tsan: deps
	SWIFT=$(SWIFT) bash fuzz/tsan.sh

## libFuzzer: the template parser and the request path, FUZZ_SECONDS each (default 60).
FUZZ_SECONDS ?= 60
fuzz: deps
	SWIFT=$(SWIFT) bash fuzz/run.sh $(FUZZ_SECONDS)

clean:
	rm -rf .build
