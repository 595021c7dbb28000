# Autarch build. `make test` is fast and needs no root; `make e2e` installs the
# real editors it drives (Neovim, Chromium, code-server) itself.
GO      ?= go
BIN     := bin/autarch
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build test test-go bench e2e e2e-neovim vsix run clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/autarch

test: test-go

test-go: build
	$(GO) vet ./...
	$(GO) test -race -count=1 ./...

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...

e2e: e2e-neovim

e2e-neovim: build
	./e2e/neovim/run.sh

clean:
	rm -rf bin
