# arcport — build, test, demo, bench.
SHELL   := bash
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT  ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -s -w -X github.com/arcport/arcport/lib/internal/cliutil.Version=$(VERSION) -X github.com/arcport/arcport/lib/internal/cliutil.Commit=$(COMMIT)
BINS    := $(notdir $(wildcard cmd/*))

.PHONY: all build test vet demo bench fuzz peers clean man

all: build

build:
	@mkdir -p bin
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...
	@echo "built: $(addprefix bin/,$(BINS))"

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# Unit, golden, peer-comparison and end-to-end tests, after installing the
# peers and servers they run against (make peers). A test whose peer is
# still missing skips with "missing peer ..." (fails under CI=true); the
# summary at the end names every skipped test and closes with
# "N passed, N failed, N skipped".
test: peers vet build cross deploytest
	set -o pipefail; $(GO) test -json -count=1 -timeout 30m ./... | $(GO) run ./scripts/testsum

peers:
	bash scripts/peers.sh

# deploy/k8s is a module of its own (arcport does not depend on k8s.io/api):
# its Jobs decode strictly into the Kubernetes API types, with indexed
# completion, per-index backoff and the exit-65 rule checked.
.PHONY: deploytest
deploytest:
	cd deploy/k8s && $(GO) vet ./... && $(GO) test -count=1 ./...

# The platform pairs every binary builds for: static (CGO_ENABLED=0), no
# C toolchain needed. docs/platforms.md says what differs between them.
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64 freebsd/amd64 freebsd/arm64
SHA256SUM ?= $(shell command -v sha256sum >/dev/null 2>&1 && echo sha256sum || echo shasum -a 256)

.PHONY: release cross

# dist/<os>-<arch>/BIN (BIN.exe on Windows) for every platform pair, with
# the version in --version, and dist/SHA256SUMS over all of them.
release:
	rm -rf dist
	@set -e; for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "$(GO) build $$os/$$arch -> dist/$$os-$$arch/"; \
		mkdir -p dist/$$os-$$arch; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o dist/$$os-$$arch/ ./cmd/...; \
	done
	cd dist && find . -type f ! -name SHA256SUMS | sed 's|^\./||' | LC_ALL=C sort | xargs $(SHA256SUM) > SHA256SUMS
	@cat dist/SHA256SUMS

# Every binary builds for every platform pair (one go build of ./cmd/...
# per pair, nothing written), and go vet passes for Windows and macOS
# (test files included): what make test checks before the tests.
cross:
	@set -e; for p in $(PLATFORMS); do \
		echo "CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -o /dev/null ./cmd/..."; \
		CGO_ENABLED=0 GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -o /dev/null ./cmd/...; \
	done
	GOOS=windows $(GO) vet ./...
	GOOS=darwin $(GO) vet ./...

# Man pages man/BIN.1 from the command-line definitions (committed:
# lib/cli/clidoc's TestManUpToDate fails when they are out of date).
man:
	$(GO) run ./scripts/mangen man

demo: build
	bash scripts/demo.sh

bench: build
	bash scripts/bench.sh

FUZZTIME ?= 30s
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin out dist
