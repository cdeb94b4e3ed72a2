#!/usr/bin/env sh
# Makes sure Debian's Chromium is present for the docs browser tests.
# The tests drive /usr/bin/chromium through playwright-core; we never download
# Playwright's own browser builds, so the distro package is the only source.
# Called by .ci/run and by the docs test setup (apps/docs/test/support/provision-chromium.ts).
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

# Several test runs may get here at once: apt waits for the package lock instead of failing on it.
APT_WAIT="-o DPkg::Lock::Timeout=600"
export DEBIAN_FRONTEND=noninteractive
echo "ensure-chromium: $CHROMIUM is missing; installing Debian's chromium package with apt-get" >&2
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT update
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT install -y chromium
echo "chromium installed: $("$CHROMIUM" --version 2>/dev/null || echo "$CHROMIUM")"
