import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DefinitionName, validate as validateV2 } from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { CompatError } from '../src/index.js';
import { validate as validateV1 } from '../src/generated/v1/validate.js';
import type * as V1 from '../src/generated/v1/types.js';
import {
  CONVERSIONS,
  v1ToV2McpServer,
  v2ToV1McpServer,
  v2ToV1ToolCallDiff,
} from '../src/generated/compat/converters.js';

const SCHEMA = fileURLToPath(new URL('../../../schema/', import.meta.url));

function examples(version: 'v1' | 'v2', definition: string): { name: string; value: unknown }[] {
  const dir = join(SCHEMA, version, 'examples', definition);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    return [];
  }
  return files.map((f) => ({
    name: `${definition}/${f}`,
    value: JSON.parse(readFileSync(join(dir, f), 'utf8')),
  }));
}

type Convert = (value: unknown) => unknown;

describe('generated converters on every example with a counterpart', () => {
  for (const c of CONVERSIONS) {
    const toV2 = c.toV2 as Convert | undefined;
    const toV1 = c.toV1 as Convert | undefined;
    // Converters that need a second argument (contextToV2/contextToV1) are tested on their own below.
    for (const { name, value } of examples('v1', c.v1)) {
      if (toV2 === undefined || c.contextToV2 !== undefined) continue;
      it(`v1 ${name} → v2 ${c.v2}${c.lossyToV2 || !toV1 ? '' : ' → v1 round-trips'}`, () => {
        const converted = toV2(value);
        const checked = validateV2(c.v2 as DefinitionName, converted);
        expect(checked.ok ? [] : checked.issues).toEqual([]);
        if (toV1 !== undefined && c.lossyToV2 === undefined) expect(toV1(converted)).toEqual(value);
      });
    }
    for (const { name, value } of examples('v2', c.v2)) {
      if (toV1 === undefined || c.contextToV1 !== undefined) continue;
      it(`v2 ${name} → v1 ${c.v1}${c.lossyToV1 || !toV2 ? '' : ' → v2 round-trips'}`, () => {
        let converted: unknown;
        try {
          converted = toV1(value);
        } catch (error) {
          // Values with no v1 form must say so with a CompatError, and the mapping must call that lossy.
          expect(error).toBeInstanceOf(CompatError);
          expect(c.lossyToV1).toBeDefined();
          return;
        }
        const checked = validateV1(c.v1 as V1.DefinitionName, converted);
        expect(checked.ok ? [] : checked.issues).toEqual([]);
        if (toV2 !== undefined && c.lossyToV1 === undefined) expect(toV2(converted)).toEqual(value);
      });
    }
  }

  it('covers every conversion with at least one example on some side', () => {
    const uncovered = CONVERSIONS.filter(
      (c) => examples('v1', c.v1).length + examples('v2', c.v2).length === 0,
    );
    expect(uncovered.map((c) => c.name)).toEqual([]);
  });
});

describe('hand-written conversions', () => {
  it('keeps the first change with new text when a multi-file v2 diff goes to v1', () => {
    expect(
      v2ToV1ToolCallDiff({
        type: 'diff',
        changes: [
          { operation: 'delete', path: '/a' },
          { operation: 'modify', path: '/b', oldText: 'x', newText: 'y' },
        ],
      }),
    ).toEqual({ type: 'diff', path: '/b', oldText: 'x', newText: 'y' });
  });

  it('passes an MCP server of a transport v1 does not know unchanged, both ways', () => {
    const later = { type: 'websocket', name: 's', url: 'ws://127.0.0.1:7000/mcp' };
    expect(v2ToV1McpServer(later as never)).toEqual(later);
    expect(v1ToV2McpServer(later as never)).toEqual(later);
    // v2 `_sse` is v1's sse, and back.
    expect(v2ToV1McpServer({ type: '_sse', name: 'e', url: 'http://127.0.0.1/sse' } as never)).toMatchObject({
      type: 'sse',
    });
  });
});
