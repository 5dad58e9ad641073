# Vigil: the two commands of a fresh machine are `make run` and `make test`.
SHELL := /bin/bash
NPM ?= npm
# Where model packs are pulled from. On a development machine the shared test
# models sit beside the checkout; elsewhere the manifests' upstream URLs are used.
MODEL_SOURCE ?= $(if $(wildcard ../shared/models/*.tflite),../shared/models,)

.PHONY: deps build run test bench clean

node_modules/.installed: package.json package-lock.json
	$(NPM) ci --no-audit --no-fund
	@touch $@

deps: node_modules/.installed

build: deps
	$(NPM) run build

## Install, build, fetch the models and run the daemon on its embedded defaults.
run: build
	VIGIL_MODELS__SOURCE=$(MODEL_SOURCE) node dist/runtime/cli.js serve

## The whole test suite.
test: deps
	$(NPM) test

## Speed and memory figures (a table), not a test.
bench: deps
	$(NPM) run bench

clean:
	rm -rf dist
