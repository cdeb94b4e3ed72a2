import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Change, DiffReport } from '../src/diff/change.js';
import { diffSchemas } from '../src/diff/diff-schemas.js';
import type { JsonObject } from '../src/json.js';

/**
 * The official SDK's published schemas (fixtures/official-history, see its README): acp-kit wrote none
 * of them, and they follow none of our conventions, so the diff runs on its generic rules. Each pair's
 * asserted changes were checked by hand in the two files.
 */
function official(path: string): { label: string; schema: JsonObject } {
  const url = new URL(`./fixtures/official-history/${path}.json`, import.meta.url);
  return { label: path, schema: JSON.parse(readFileSync(url, 'utf8')) as JsonObject };
}

function pair(from: string, to: string): DiffReport {
  return diffSchemas(official(from), official(to));
}

function at(report: DiffReport, pointer: string, rule: string): Change | undefined {
  return report.changes.find((c) => c.pointer === pointer && c.rule === rule);
}

describe('official v2 schemas, release by release', () => {
  it('2.0.0 → 2.1.0: null request IDs dropped, commands tagged, line numbers from 1 — all in a minor release', () => {
    const report = pair('v2/2.0.0', 'v2/2.1.0');
    expect(report.conventions.new).toEqual({
      methods: 'x-method',
      discriminators: false,
      openEnums: false,
      capabilities: false,
    });
    expect(at(report, '/$defs/RequestId/anyOf/0', 'union-variant-removed')).toMatchObject({
      verdict: 'breaking',
      breaksSenders: ['client', 'agent'],
    });
    expect(
      at(report, '/$defs/AvailableCommand/anyOf/0/properties/type', 'required-property-added'),
    ).toMatchObject({
      flow: 'agent → client',
      breaksSenders: ['agent'],
    });
    expect(
      at(report, '/$defs/ToolCallLocation/properties/line/minimum', 'bound-tightened')?.breaksSenders,
    ).toEqual(['agent']);
    // ErrorCode has an "Other" integer branch, so the new -32022 is kept by old receivers.
    expect(at(report, '/$defs/ErrorCode/anyOf/8', 'union-variant-added-open')?.verdict).toBe('additive');
    expect(at(report, '/$defs/TerminalUpdate/properties/size', 'optional-property-added')?.verdict).toBe(
      'additive',
    );
  });

  it('2.1.0 → 2.2.0: a prompt needs at least one content block; batch messages leave the top-level union', () => {
    const report = pair('v2/2.1.0', 'v2/2.2.0');
    expect(at(report, '/$defs/PromptRequest/properties/prompt/minItems', 'bound-added')).toMatchObject({
      flow: 'client → agent',
      breaksSenders: ['client'],
    });
    expect(
      report.changes.filter((c) => c.subject === '(schema)' && c.rule === 'union-variant-removed'),
    ).toHaveLength(4);
  });

  it('2.2.0 → 2.3.0: tool_call/cancel and terminal/cancel are new baseline requests; "paused" joins an open status', () => {
    const report = pair('v2/2.2.0', 'v2/2.3.0');
    const added = report.changes
      .filter((c) => c.rule === 'method-added')
      .map((c) => [c.subject, c.breaksReceivers]);
    expect(added).toEqual([
      ['terminal/cancel', ['agent']],
      ['tool_call/cancel', ['agent']],
    ]);
    expect(at(report, '/$defs/ToolCallStatus/anyOf/2', 'union-variant-added-open')?.reason).toContain(
      '"paused"',
    );
    expect(
      at(report, '/$defs/IdleStateUpdate/properties/background', 'optional-property-added')?.verdict,
    ).toBe('additive');
  });

  it('2.3.0 → 2.4.0: the same schema file, so no change', () => {
    expect(pair('v2/2.3.0', 'v2/2.4.0').changes).toEqual([]);
  });
});

describe('official v1', () => {
  it("upstream's v1 (1.9.0, with its unstable features) → the official v1 of 2.4.0: unstable methods and kinds gone", () => {
    const report = pair('v1/1.9.0', 'v1/2.4.0');
    expect(at(report, '/$defs/ForkSessionRequest/x-method', 'method-removed')).toMatchObject({
      subject: 'session/fork',
      breaksSenders: ['client'],
    });
    expect(at(report, '/$defs/SessionUpdate/oneOf/6', 'union-variant-removed')?.reason).toContain(
      'plan_update',
    );
    expect(at(report, '/$defs/PromptResponse/properties/usage', 'optional-property-removed')?.verdict).toBe(
      'additive',
    );
  });

  it('official v1 → official v2 (2.4.0): PromptResponse trades stopReason for messageId', () => {
    const report = pair('v1/2.4.0', 'v2/2.4.0');
    expect(at(report, '/$defs/PromptResponse/properties/messageId', 'required-property-added')).toMatchObject(
      {
        flow: 'agent → client',
        breaksSenders: ['agent'],
        breaksReceivers: [],
      },
    );
    expect(
      at(report, '/$defs/PromptResponse/properties/stopReason', 'required-property-removed'),
    ).toMatchObject({
      breaksReceivers: ['client'],
    });
  });
});
