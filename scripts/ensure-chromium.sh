#!/usr/bin/env sh
# Makes sure Debian's Chromium is present for the docs browser tests.
# The tests drive /usr/bin/chromium through playwright-core; we never download
# Playwright's own browser builds, so the distro package is the only source.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "chromium already installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "ensure-chromium: $CHROMIUM is missing and we are not root (no sudo either)." >&2
    echo "Install it yourself: apt-get update && apt-get install -y chromium" >&2
    exit 1
  fi
else
  SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium
echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
