#!/usr/bin/env bash
# Installs what the real-editor end-to-end tests drive, idempotently: what
# running needs (.ci/install-run.sh: Node 24 and code-server inside the
# clone's .cache/) plus Debian's chromium (the browser Playwright drives)
# and neovim.
set -euo pipefail
cd "$(dirname "$0")/.."
./.ci/install-run.sh chromium:chromium nvim:neovim
echo "install-e2e: ready ($(chromium --version 2>/dev/null), $(nvim --version 2>/dev/null | head -1))"
