#!/usr/bin/env sh
# Usage: ensure-debian-package.sh <binary path> <Debian package> <version flag>
# Makes sure a binary the tests run is present, installing its Debian package with apt-get when
# it is missing (as root, or through sudo). Never downloads anything else. Used by
# ensure-chromium.sh, ensure-nginx.sh and ensure-pgbouncer.sh.
set -eu

BINARY=$1
PACKAGE=$2
VERSION_FLAG=$3

if [ -x "$BINARY" ]; then
  echo "$PACKAGE already installed: $("$BINARY" "$VERSION_FLAG" 2>&1 | tail -n 1)"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "ensure-$PACKAGE: $BINARY is missing and we are not root (no sudo either)." >&2
    echo "Install it yourself: apt-get update && apt-get install -y $PACKAGE" >&2
    exit 1
  fi
else
  SUDO=
fi

# Several test runs may get here at once: apt waits for the package lock instead of failing on it.
APT_WAIT="-o DPkg::Lock::Timeout=600"
export DEBIAN_FRONTEND=noninteractive
echo "ensure-$PACKAGE: $BINARY is missing; installing Debian's $PACKAGE package with apt-get" >&2
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT update
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT install -y "$PACKAGE"
echo "$PACKAGE installed: $("$BINARY" "$VERSION_FLAG" 2>&1 | tail -n 1)"
