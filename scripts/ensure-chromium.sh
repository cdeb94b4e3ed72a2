#!/usr/bin/env sh
# Makes sure Debian's Chromium is present for the browser tests, which drive /usr/bin/chromium
# through playwright-core; Playwright's own browser builds are never downloaded. Called by .ci/run
# and by the docs test setup (apps/docs/test/support/provision-chromium.ts).
exec sh "$(dirname "$0")/ensure-debian-package.sh" /usr/bin/chromium chromium --version
