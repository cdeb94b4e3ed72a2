#!/usr/bin/env sh
# Makes sure Debian's PostgreSQL server binaries are present for the history-postgres tests.
# Prints the directory holding initdb/postgres (for example /usr/lib/postgresql/15/bin) on stdout;
# everything else goes to stderr. Installs the `postgresql` package when no server is found.
set -eu

find_bindir() {
  for dir in /usr/lib/postgresql/*/bin; do
    if [ -x "$dir/initdb" ] && [ -x "$dir/postgres" ]; then
      echo "$dir"
    fi
  done | sort -V | tail -n 1
}

BINDIR=$(find_bindir)
if [ -n "$BINDIR" ]; then
  echo "postgresql already installed: $BINDIR" >&2
  echo "$BINDIR"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=sudo
  else
    echo "ensure-postgres: no PostgreSQL server under /usr/lib/postgresql and we are not root (no sudo either)." >&2
    echo "Install it yourself: apt-get update && apt-get install -y postgresql" >&2
    exit 1
  fi
else
  SUDO=
fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update >&2
# The package's post-install creates the `postgres` user and a default cluster; the tests use
# neither the cluster nor its service, only the binaries, in throwaway data directories.
$SUDO apt-get install -y --no-install-recommends postgresql >&2

BINDIR=$(find_bindir)
if [ -z "$BINDIR" ]; then
  echo "ensure-postgres: installed postgresql but found no initdb under /usr/lib/postgresql/*/bin" >&2
  exit 1
fi
echo "postgresql installed: $BINDIR" >&2
echo "$BINDIR"
