#!/usr/bin/env sh
# Makes sure Debian's nginx is present for the load-balancer scenario
# (packages/cli/test/scenarios/replicas-behind-nginx.test.ts), which runs it as a child
# process with its own config in a temp dir. Called by .ci/run and by packages/cli/test/load-balancer.ts.
set -eu

NGINX=/usr/sbin/nginx

if [ -x "$NGINX" ]; then
  echo "nginx already installed: $("$NGINX" -v 2>&1 || echo "$NGINX")"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "ensure-nginx: $NGINX is missing and we are not root (no sudo either)." >&2
    echo "Install it yourself: apt-get update && apt-get install -y --no-install-recommends nginx" >&2
    exit 1
  fi
else
  SUDO=
fi

# Several test runs may get here at once: apt waits for the package lock instead of failing on it.
APT_WAIT="-o DPkg::Lock::Timeout=600"
export DEBIAN_FRONTEND=noninteractive
echo "ensure-nginx: $NGINX is missing; installing Debian's nginx package with apt-get" >&2
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT update
# shellcheck disable=SC2086
$SUDO apt-get $APT_WAIT install -y --no-install-recommends nginx
echo "nginx installed: $("$NGINX" -v 2>&1 || echo "$NGINX")"
