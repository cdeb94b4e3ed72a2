#!/usr/bin/env node
// Committed launcher, so npm links the `acp-kit` bin at install time, before the TypeScript build exists.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/bin.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'acp-kit: not built yet. Run `npm run build` (or `npm run generate && npm run build`) first.\n',
  );
  process.exit(1);
}
await import(entry.href);
