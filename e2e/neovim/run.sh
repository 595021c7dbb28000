#!/usr/bin/env bash
# Runs the Neovim end-to-end test against bin/autarch: a real LSP client
# nobody here wrote. Installs Debian's neovim when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v nvim >/dev/null; then
  if [ "$(id -u)" = 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q neovim >/dev/null
  else
    sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q neovim >/dev/null
  fi
fi
work=$(mktemp -d)
model_pid=""
trap '[ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/project" "$work/home"
printf 'package main\n\nfunc main() {}\n' > "$work/project/main.go"
git -C "$work/project" init -q -b main
git -C "$work/project" add -A
git -C "$work/project" -c user.name=e2e -c user.email=e2e@example.com commit -q -m initial
# The scripted OpenAI-compatible model the workflow talks to.
go build -o "$work/autarch-scripted" ./cmd/autarch-scripted
"$work/autarch-scripted" --script e2e/neovim/workflow.txt > "$work/model.url" 2> "$work/model.log" &
model_pid=$!
for _ in $(seq 100); do [ -s "$work/model.url" ] && break; sleep 0.1; done
export AUTARCH_MODEL_URL="$(head -1 "$work/model.url")"
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_DATA_HOME="$work/home/.local/share" XDG_STATE_HOME="$work/home/.local/state" XDG_CACHE_HOME="$work/home/.cache"
export AUTARCH_BIN="$PWD/bin/autarch" AUTARCH_ROOT="$work/project" AUTARCH_NVIM_LOG="$work/serve.log"
unset OPENAI_API_KEY OPENAI_BASE_URL AUTARCH_MODEL
if ! timeout 150 nvim --headless -u NONE -i NONE -n -c "luafile e2e/neovim/test.lua" </dev/null; then
  echo "neovim e2e failed; server log:" >&2
  cat "$work/serve.log" >&2 || true
  exit 1
fi
echo "neovim e2e: ok"
