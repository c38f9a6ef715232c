# arcport — build, test, demo, bench.
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X github.com/arcport/arcport/lib/internal/cliutil.Version=$(VERSION)
BINS    := $(notdir $(wildcard cmd/*))

.PHONY: all build test vet demo bench fuzz peers clean

all: build

build:
	@mkdir -p bin
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ ./cmd/...
	@echo "built: $(addprefix bin/,$(BINS))"

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt needed"; exit 1; }
	$(GO) vet ./...

# Unit, golden, peer-comparison and end-to-end tests. Tests that need a peer
# tool (httrack, zimdump, warcio, chromium) skip when it is absent: run
# `make peers` (or .ci/run) first to have them all.
test: vet build
	$(GO) test -count=1 -timeout 30m ./...

peers:
	bash scripts/peers.sh

demo: build
	bash scripts/demo.sh

bench: build
	bash scripts/bench.sh

FUZZTIME ?= 30s
fuzz:
	bash scripts/fuzz.sh $(FUZZTIME)

clean:
	rm -rf bin out
