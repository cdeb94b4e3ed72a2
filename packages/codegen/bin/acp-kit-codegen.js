#!/usr/bin/env node
// Committed launcher, so npm links the bin at install time, before the TypeScript build exists.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'acp-kit-codegen: not built yet. Run `npx turbo run build --filter=@acp-kit/codegen` first.\n',
  );
  process.exit(1);
}
await import(entry.href);
