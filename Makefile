# The two set-up commands of the README: `make demo` (the main job) and `make test` (the tests).
# Each works on a fresh machine of this kind with nothing done by hand, and is quick when already
# set up: npm ci and tsc run only when their inputs changed, the engine is started only when none
# answers, and the sandbox image is built only when no image of the current recipe exists.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PIPER := node bin/piper-agent.js
NODE_STAMP := node_modules/.install-stamp
BUILD_STAMP := dist/.build-stamp
TS_SOURCES := $(shell find cli core runtime primitives policy eval bench -name '*.ts' -o -name '*.tsx' 2>/dev/null)

.PHONY: help demo test test-cluster test-eval build engine image lint format bench clean host-tools

help:
	@echo "make demo   run the main job: piper-agent fixes the bundled sample repository"
	@echo "make test   lint + typecheck + the unit and real-engine integration tests"
	@echo "make test-cluster  the two-node Docker Swarm test of ab --cluster swarm (minutes)"
	@echo "make test-eval  ab over piperbench and ab validate over the real task set (many minutes)"
	@echo "make bench  the sandbox speed benchmark (JSON on stdout)"

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

$(BUILD_STAMP): $(NODE_STAMP) $(TS_SOURCES) tsconfig.json tsconfig.build.json rolldown.config.mjs
	npx tsc -p tsconfig.build.json
	npx rolldown -c rolldown.config.mjs > /dev/null
	@touch $@

build: $(BUILD_STAMP)

engine: build
	$(PIPER) engine up

image: engine
	$(PIPER) image build

lint: $(NODE_STAMP)
	npx tsc -p tsconfig.json --noEmit
	npx eslint .
	node scripts/import-cycles.mjs
	npx prettier --check . --log-level warn
	npx knip

format: $(NODE_STAMP)
	npx prettier --write . --log-level warn

# tmux drives the TUI test in a real terminal; Debian's docker-registry is the test swarm's registry
# (test/helpers/swarm.ts starts it inside the swarm's network namespace; it is never left running).
host-tools:
	@command -v tmux >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux)
	@command -v docker-registry >/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends docker-registry)

test: image lint host-tools
	npx vitest run --project unit --project integration

# The two-node Docker Swarm test of `ab --cluster swarm` (docs/scale.md): long, so apart from `make test`.
test-cluster: image host-tools
	npx vitest run --project cluster

# End-to-end evaluation runs over whole task sets (test/eval): `ab --model sim:1` over piperbench,
# and `ab validate` over the committed real set (eval/tasks/real), which builds each project's
# environments. Minutes each, so apart from `make test`; CI (.ci/run) runs both.
test-eval: image host-tools
	npx vitest run --project eval

demo: image
	$(PIPER) demo

# Every benchmark prints a table on stderr and one JSON object per benchmark on stdout.
bench: image
	@command -v /usr/bin/python3 >/dev/null && /usr/bin/python3 -c 'import pytest, attrs, packaging' 2>/dev/null || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-pytest python3-attr python3-packaging)
	node dist/bench/sandbox.js --json
	node dist/bench/run-test.js --json
	node dist/bench/index.js --json
	node dist/bench/index-ts.js --json
	node dist/bench/loop-overhead.js --json
	node dist/bench/policy-overhead.js --json
	node dist/bench/env.js --json
	node dist/bench/js-env.js --json
	node dist/bench/startup.js --json
	node dist/bench/interrupt.js --json

clean:
	rm -rf dist
