import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '../src/json.js';
import { buildModel } from '../src/model/build-model.js';
import type { SchemaModel } from '../src/model/model.js';

/** Path of the fixture schema that follows schema/README.md. */
export const MINI_SCHEMA = new URL('./fixtures/mini.schema.json', import.meta.url).pathname;

/** A fresh, mutable copy of the fixture schema. */
export function miniSchema(): JsonObject {
  return JSON.parse(readFileSync(MINI_SCHEMA, 'utf8')) as JsonObject;
}

/** Writes a schema to a new temporary directory and returns the file's path. */
export function writeTempSchema(schema: unknown, name = 'schema.json'): string {
  const dir = mkdtempSync(join(tmpdir(), 'acp-kit-codegen-'));
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(schema, null, 2));
  return path;
}

/** The model of a schema object, as `generate` would build it. */
export function modelOf(schema: JsonObject): SchemaModel {
  return buildModel({ path: '/tmp/fixture.json', file: 'fixture.json', schema });
}

/** Navigates a JSON object along keys, for editing fixture copies. */
export function at(root: JsonObject, ...keys: string[]): JsonObject {
  let node: unknown = root;
  for (const key of keys) node = (node as JsonObject)[key];
  return node as JsonObject;
}
