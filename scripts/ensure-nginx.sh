#!/usr/bin/env sh
# Makes sure Debian's nginx is present for the load-balancer scenario
# (packages/cli/test/scenarios/replicas-behind-nginx.test.ts), which runs it as a child process
# with its own config in a temp dir. Called by .ci/run and by packages/cli/test/load-balancer.ts.
exec sh "$(dirname "$0")/ensure-debian-package.sh" /usr/sbin/nginx nginx -v
