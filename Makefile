# Autarch build. `make test` is fast and needs no root; `make e2e` installs the
# real editors it drives (Neovim, Chromium, code-server) itself.
GO      ?= go
BIN     := bin/autarch
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: gopls install bench-index train-embedder bench-grep bench-pulse-start bench-workflow bench-load all build test test-go test-ext node-deps bench e2e e2e-neovim e2e-vscode e2e-acp vsix run clean

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/autarch

# Installs bin/autarch as `autarch` into INSTALL_DIR, else $(go env GOBIN),
# else the first $(go env GOPATH)/bin, and says where (and how to put it on
# PATH when it is not).
install: build
	@dest="$(INSTALL_DIR)"; \
	[ -n "$$dest" ] || dest="$$($(GO) env GOBIN)"; \
	[ -n "$$dest" ] || { gopath="$$($(GO) env GOPATH)"; dest="$${gopath%%:*}/bin"; }; \
	mkdir -p "$$dest" && install -m 0755 "$(BIN)" "$$dest/autarch" && \
	echo "Installed autarch $(VERSION) as $$dest/autarch"; \
	case ":$$PATH:" in \
	  *":$$dest:"*) echo "$$dest is on your PATH: run autarch --help" ;; \
	  *) echo "$$dest is not on your PATH: add it (export PATH=\"$$dest:\$$PATH\") or run $$dest/autarch" ;; \
	esac

test: test-go test-ext

test-go: build node-deps gopls  # node-deps: the MCP servers tools/mcp tests drive; gopls: the code intelligence tools' tests
	$(GO) vet ./...
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" $(GO) test -race -count=1 -timeout 20m ./...  # cmd/autarch alone takes 8 minutes on 2 cores

# gopls, pinned: the code intelligence tools' tests run against a real one
# (v0.23.0 is the last that runs on this Go); installed into $(go env GOPATH)/bin.
GOPLS_VERSION := v0.23.0
gopls:
	@PATH="$$($(GO) env GOPATH)/bin:$$PATH" gopls version 2>/dev/null | grep -q 'gopls $(GOPLS_VERSION)' || \
	  { echo "go install golang.org/x/tools/gopls@$(GOPLS_VERSION)"; $(GO) install golang.org/x/tools/gopls@$(GOPLS_VERSION); }

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Code search quality (../shared/bench) and speed over $(go env GOROOT)/src.
# Search quality on the dev splits (CoSQA, goloc, golochist with and without
# each file's history), then the growth table: build time, peak RSS, disk
# size and a cold search with nothing changed, from a quarter of
# $(go env GOROOT)/src to four copies of it (TREES="quarter half x1 x4").
bench-index: build
	AUTARCH_BENCH_INDEX=1 $(GO) test -count=1 -v -run 'TestQuality' ./index
	AUTARCH=$(CURDIR)/$(BIN) ./scripts/bench-index-growth.sh

# Retrains the shipped code embedder (index/embedder/code-embedder.bin) from
# the Go and Python sources on this machine; deterministic, 2 cores.
train-embedder:
	$(GO) run ./cmd/autarch-train-embedder -out index/embedder/code-embedder.bin

# grep against ripgrep over $(go env GOROOT)/src and the Go module cache:
# a new, cold autarch process per query against rg -i -c, paired runs,
# medians, the load average per row. AUTARCH_BENCH_BEFORE=<another autarch
# binary> adds its column; AUTARCH_BENCH_RUNS=<n> more pairs.
bench-grep:
	AUTARCH_BENCH_RG=1 $(GO) test -count=1 -v -timeout 60m -run '^TestGrepVersusRipgrep$$' ./tools

# Pulse start on a 45k-file repository (four copies of $(go env GOROOT)/src,
# or AUTARCH_BENCH_PULSE_REPO): worktrees prepared ahead against checked out,
# the second pulse, status; each time with the load average.
bench-pulse-start:
	AUTARCH_BENCH_PULSE=1 $(GO) test -count=1 -v -timeout 30m -run '^TestPulseStartBig$$' ./workspace/git

# The same scripted two-pulse workflow (autarch run, whole process) on a
# 3-file Go module and on it at the top of a 23k-file repository, paired;
# AUTARCH_BENCH_BEFORE=<another autarch binary> adds its rows.
bench-workflow:
	AUTARCH_BENCH_WORKFLOW=1 $(GO) test -count=1 -v -timeout 60m -run '^TestWorkflowAtScale$$' ./cmd/autarch

# 100 concurrent autarch.search and 3 workflows over one LSP connection for
# AUTARCH_BENCH_LOAD_SECONDS (default 60): prints errors, latency, RSS.
bench-load:
	AUTARCH_BENCH_LOAD=1 $(GO) test -count=1 -v -timeout 20m -run '^TestLoad$$' ./server

e2e: e2e-neovim e2e-vscode

e2e-neovim: build
	./e2e/neovim/run.sh

# ACP: the official TypeScript SDK's client drives bin/autarch acp (also run by
# `make test` through cmd/autarch's TestACPEndToEnd).
e2e-acp: build node-deps
	$(GO) build -o bin/autarch-scripted ./cmd/autarch-scripted
	node e2e/acp/run.mjs

# npm ci once per lockfile change (node_modules/.package-lock.json is npm's stamp).
node-deps: node_modules/.package-lock.json
node_modules/.package-lock.json: package-lock.json vscode-extension/package.json
	npm ci --no-audit --no-fund
	@touch $@

test-ext: node-deps
	cd vscode-extension && npm test

# The .vsix carries this platform's server as server/autarch.
vsix: build node-deps
	mkdir -p vscode-extension/server
	cp $(BIN) vscode-extension/server/autarch
	cd vscode-extension && npm run package

# Real VS Code (code-server + Chromium + Playwright); installs them itself.
e2e-vscode: vsix
	./.ci/install-e2e.sh
	node e2e/vscode/run.mjs

# Set up and run the product: VS Code with the extension when `code` is
# installed, else code-server on 127.0.0.1 with the extension (prints the URL).
# npm's cache stays inside the clone, as everything else `make run` installs.
# It prints a few lines; the build's, installers' and code-server's output go
# to RUN_LOG (its end is shown when something fails).
RUN_LOG := $(CURDIR)/.cache/run/make-run.log
ifeq ($(origin npm_config_cache),undefined)
run: export npm_config_cache := $(CURDIR)/.cache/npm
endif
run:
	@mkdir -p $(dir $(RUN_LOG)) && : > "$(RUN_LOG)"
	@echo "make run: building the server and the VS Code extension (details: $(RUN_LOG))"
	@$(MAKE) --no-print-directory vsix >> "$(RUN_LOG)" 2>&1 || { \
	  echo "make run: the build failed. The last lines of the log:" >&2; tail -n 15 "$(RUN_LOG)" | sed 's/^/  /' >&2; \
	  echo "The whole log: $(RUN_LOG)" >&2; exit 1; }
	@AUTARCH_RUN_LOG="$(RUN_LOG)" ./scripts/run.sh

clean:
	rm -rf bin vscode-extension/dist vscode-extension/out-test vscode-extension/server
