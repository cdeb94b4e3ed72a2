// Copies the canonical JSON Schema files from the repository's schema/ folder into dist/schema/
// at build time, so `@acp-kit/schema/schema/v2/schema.json` (and v1) can be imported from npm
// without a second copy of each schema in git. The files are copied byte for byte: the unstable
// surface stays inside each file, each unstable definition marked `"x-unstable": true`.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const SCHEMAS = join(PACKAGE, '..', '..', 'schema');

/** Paths under schema/, copied to the same paths under dist/schema/ (the `exports` map names them). */
const SCHEMA_FILES = ['v1/schema.json', 'v2/schema.json'];

for (const file of SCHEMA_FILES) {
  const target = join(PACKAGE, 'dist', 'schema', file);
  mkdirSync(dirname(target), { recursive: true });
  copyFileSync(join(SCHEMAS, file), target);
}
