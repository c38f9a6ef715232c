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
test: peers vet build
	set -o pipefail; $(GO) test -json -count=1 -timeout 30m ./... | $(GO) run ./scripts/testsum

peers:
	bash scripts/peers.sh

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
	rm -rf bin out
