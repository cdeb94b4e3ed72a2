#!/usr/bin/env sh
# Makes sure Debian's pgbouncer is present for the connection-pooler scenarios
# (packages/history-postgres/test/pgbouncer.test.ts), which run it as a child process with their
# own config in a temp dir on 127.0.0.1. Called by .ci/run.
exec sh "$(dirname "$0")/ensure-debian-package.sh" /usr/sbin/pgbouncer pgbouncer --version
