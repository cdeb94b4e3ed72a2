import { describe, expect, it } from 'vitest';
import { requiredBump } from '../src/diff/bump.js';
import type { Change, DiffReport } from '../src/diff/change.js';
import { parseChangeset } from '../src/diff/changesets.js';
import { diffSchemas } from '../src/diff/diff-schemas.js';
import { formatJson, formatMarkdown, formatText } from '../src/diff/format-report.js';
import type { JsonObject } from '../src/json.js';

/** A small schema following schema/README.md: one request each way, one notification, a union, enums. */
function base(): JsonObject {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Diff fixture',
    'x-methods': {
      'session/prompt': {
        direction: 'client_to_agent',
        kind: 'request',
        params: 'PromptRequest',
        result: 'PromptResponse',
        description: 'Prompt.',
      },
      'session/update': {
        direction: 'agent_to_client',
        kind: 'notification',
        params: 'SessionNotification',
        description: 'Update.',
      },
      'fs/read': {
        direction: 'agent_to_client',
        kind: 'request',
        params: 'ReadRequest',
        result: 'ReadResponse',
        description: 'Read.',
      },
    },
    $defs: {
      PromptRequest: {
        description: 'Prompt params.',
        type: 'object',
        properties: {
          sessionId: { description: 'Session.', type: ['string', 'null'] },
          prompt: { description: 'Text.', type: 'array', items: { type: 'string' } },
        },
        required: ['sessionId'],
      },
      PromptResponse: {
        description: 'Receipt.',
        type: 'object',
        properties: { messageId: { description: 'ID.', type: 'string' } },
        required: ['messageId'],
      },
      SessionNotification: {
        description: 'Update params.',
        type: 'object',
        properties: { update: { $ref: '#/$defs/SessionUpdate' } },
        required: ['update'],
      },
      SessionUpdate: {
        description: 'One update.',
        'x-discriminator': 'kind',
        oneOf: [{ $ref: '#/$defs/MessageUpdate' }, { $ref: '#/$defs/UnknownUpdate' }],
      },
      MessageUpdate: {
        description: 'A message.',
        type: 'object',
        properties: {
          kind: { const: 'message' },
          role: { $ref: '#/$defs/Role' },
          stopReason: { $ref: '#/$defs/StopReason' },
        },
        required: ['kind', 'role'],
      },
      UnknownUpdate: {
        description: 'Unknown kinds, kept.',
        type: 'object',
        properties: { kind: { type: 'string', not: { enum: ['message'] } } },
        required: ['kind'],
      },
      Role: { description: 'Closed.', type: 'string', enum: ['user', 'agent'] },
      StopReason: {
        description: 'Open.',
        'x-open-enum': true,
        type: 'string',
        anyOf: [{ enum: ['end_turn', 'cancelled'] }, { type: 'string' }],
      },
      ReadRequest: {
        description: 'Read params.',
        type: 'object',
        properties: { path: { description: 'Path.', type: 'string' }, kind: { $ref: '#/$defs/ReadKind' } },
        required: ['path'],
      },
      ReadKind: {
        description: 'Closed union (no unknown branch).',
        oneOf: [
          { type: 'object', properties: { type: { const: 'text' } }, required: ['type'] },
          { type: 'object', properties: { type: { const: 'binary' } }, required: ['type'] },
        ],
      },
      ReadResponse: {
        description: 'Read result.',
        type: 'object',
        properties: { content: { description: 'Content.', type: 'string' } },
        required: ['content'],
      },
      InitializeResponse: {
        description: 'Capabilities.',
        type: 'object',
        properties: {
          capabilities: {
            description: 'Agent capabilities.',
            type: 'object',
            properties: { delete: { description: 'Delete.', type: 'boolean' } },
          },
        },
      },
    },
  };
}

function diff(edit: (s: JsonObject) => void, before: (s: JsonObject) => void = () => {}): DiffReport {
  const old = base();
  before(old);
  const next = structuredClone(old);
  edit(next);
  return diffSchemas({ label: 'old.json', schema: old }, { label: 'new.json', schema: next });
}

function defs(s: JsonObject): Record<string, JsonObject> {
  return s.$defs as Record<string, JsonObject>;
}

function props(s: JsonObject, def: string): Record<string, JsonObject> {
  return defs(s)[def]!.properties as Record<string, JsonObject>;
}

function methods(s: JsonObject): Record<string, JsonObject> {
  return s['x-methods'] as Record<string, JsonObject>;
}

function only(report: DiffReport, verdict?: Change['verdict']): Change {
  const changes = report.changes.filter((c) => verdict === undefined || c.verdict === verdict);
  expect(changes.map((c) => `${c.pointer} ${c.rule}`)).toHaveLength(1);
  return changes[0]!;
}

describe('schema diff rules', () => {
  it('finds nothing between a schema and itself', () => {
    expect(diff(() => {}).changes).toEqual([]);
  });

  it('a new value in a closed enum sent agent → client breaks old clients as receivers', () => {
    const c = only(diff((s) => (defs(s).Role!.enum as string[]).push('system')));
    expect(c).toMatchObject({
      verdict: 'breaking',
      subject: 'Role',
      pointer: '/$defs/Role/enum',
      rule: 'enum-value-added',
      flow: 'agent → client',
      breaksReceivers: ['client'],
      breaksSenders: [],
    });
    expect(c.reason).toContain('"system"');
  });

  it('a value removed from a closed enum breaks old senders (agents here)', () => {
    const c = only(diff((s) => (defs(s).Role!.enum = ['user'])));
    expect(c).toMatchObject({
      verdict: 'breaking',
      rule: 'enum-value-removed',
      breaksSenders: ['agent'],
      breaksReceivers: [],
    });
  });

  it('a new value in an x-open-enum is additive: old receivers keep it', () => {
    const c = only(
      diff((s) => ((defs(s).StopReason!.anyOf as JsonObject[])[0]!.enum as string[]).push('refusal')),
    );
    expect(c).toMatchObject({
      verdict: 'additive',
      rule: 'enum-value-added',
      pointer: '/$defs/StopReason/anyOf/0/enum',
    });
  });

  it('a new required field in client → agent params breaks old clients as senders', () => {
    const c = only(
      diff((s) => {
        props(s, 'PromptRequest').cwd = { description: 'Dir.', type: 'string' };
        (defs(s).PromptRequest!.required as string[]).push('cwd');
      }),
    );
    expect(c).toMatchObject({
      verdict: 'breaking',
      rule: 'required-property-added',
      pointer: '/$defs/PromptRequest/properties/cwd',
      flow: 'client → agent',
      breaksSenders: ['client'],
      breaksReceivers: [],
    });
  });

  it("a new required field in a request's result breaks the callee (the agent sends the result)", () => {
    const c = only(
      diff((s) => {
        props(s, 'PromptResponse').userMessageId = { description: 'ID.', type: 'string' };
        (defs(s).PromptResponse!.required as string[]).push('userMessageId');
      }),
    );
    expect(c).toMatchObject({ flow: 'agent → client', breaksSenders: ['agent'] });
  });

  it('a new optional field is additive (objects are open)', () => {
    const c = only(
      diff((s) => (props(s, 'ReadResponse').encoding = { description: 'Enc.', type: 'string' })),
    );
    expect(c).toMatchObject({ verdict: 'additive', rule: 'optional-property-added' });
  });

  it('a field that became optional breaks old receivers, who require it', () => {
    const c = only(diff((s) => (defs(s).ReadResponse!.required = [])));
    expect(c).toMatchObject({
      verdict: 'breaking',
      rule: 'property-now-optional',
      breaksReceivers: ['agent'],
    });
  });

  it('a narrowed type (no longer nullable) breaks old senders', () => {
    const c = only(diff((s) => (props(s, 'PromptRequest').sessionId!.type = 'string')));
    expect(c).toMatchObject({
      verdict: 'breaking',
      rule: 'no-longer-nullable',
      pointer: '/$defs/PromptRequest/properties/sessionId',
      breaksSenders: ['client'],
    });
  });

  it('nullability spelled anyOf-with-null instead of a type list is no change', () => {
    expect(
      diff((s) => {
        props(s, 'PromptRequest').sessionId = {
          description: 'Session.',
          anyOf: [{ type: 'string' }, { type: 'null' }],
        };
      }).changes.filter((c) => c.verdict !== 'editorial'),
    ).toEqual([]);
  });

  it('a widened type breaks old receivers', () => {
    const c = only(diff((s) => (props(s, 'ReadResponse').content!.type = ['string', 'array'])));
    expect(c).toMatchObject({ rule: 'type-widened', breaksReceivers: ['agent'], breaksSenders: [] });
  });

  it('a tighter bound breaks old senders, a looser one old receivers', () => {
    const tighter = only(diff((s) => (props(s, 'PromptRequest').prompt!.minItems = 1)));
    expect(tighter).toMatchObject({ rule: 'bound-added', breaksSenders: ['client'] });
    const looser = only(
      diff(
        (s) => delete props(s, 'PromptRequest').prompt!.maxItems,
        (s) => (props(s, 'PromptRequest').prompt!.maxItems = 3),
      ),
    );
    expect(looser).toMatchObject({ rule: 'bound-removed', breaksReceivers: ['agent'] });
  });

  it('a new variant of a union with an unknown branch is additive', () => {
    const report = diff((s) => {
      defs(s).PlanUpdate = {
        description: 'A plan.',
        type: 'object',
        properties: { kind: { const: 'plan' } },
      };
      (defs(s).SessionUpdate!.oneOf as JsonObject[]).splice(1, 0, { $ref: '#/$defs/PlanUpdate' });
      (props(s, 'UnknownUpdate').kind!.not as JsonObject).enum = ['message', 'plan'];
    });
    expect(
      report.changes.filter((c) => c.verdict === 'breaking').map((c) => `${c.pointer} ${c.rule} ${c.reason}`),
    ).toEqual([]);
    expect(report.changes.map((ch) => ch.rule)).toContain('union-variant-added-open');
    expect(report.changes.find((ch) => ch.rule === 'unknown-tags-follow')?.verdict).toBe('editorial');
  });

  it('a new variant of a closed union (no unknown branch) breaks old receivers', () => {
    const c = only(
      diff((s) =>
        (defs(s).ReadKind!.oneOf as JsonObject[]).push({
          type: 'object',
          properties: { type: { const: 'stream' } },
          required: ['type'],
        }),
      ),
    );
    expect(c).toMatchObject({
      rule: 'union-variant-added',
      pointer: '/$defs/ReadKind/oneOf/2',
      flow: 'agent → client',
      breaksReceivers: ['client'],
    });
  });

  it('a variant removed from a closed union breaks old senders; from an open one it is additive', () => {
    const closed = only(diff((s) => (defs(s).ReadKind!.oneOf as JsonObject[]).pop()));
    expect(closed).toMatchObject({ rule: 'union-variant-removed', breaksSenders: ['agent'] });
    const open = diff((s) => {
      (defs(s).SessionUpdate!.oneOf as JsonObject[]).shift();
      (props(s, 'UnknownUpdate').kind!.not as JsonObject).enum = [];
    });
    expect(open.changes.find((c) => c.rule === 'union-variant-removed-open')?.verdict).toBe('additive');
  });

  it('a removed method breaks old callers (senders)', () => {
    const report = diff((s) => delete methods(s)['fs/read']);
    const c = report.changes.find((ch) => ch.rule === 'method-removed')!;
    expect(c).toMatchObject({ subject: 'fs/read', pointer: '/x-methods/fs~1read', breaksSenders: ['agent'] });
  });

  it('a new baseline request breaks old receivers; a gated one or a notification is additive', () => {
    const request = diff((s) => {
      methods(s)['session/list'] = {
        direction: 'client_to_agent',
        kind: 'request',
        params: 'ReadRequest',
        result: 'ReadResponse',
        description: 'List.',
      };
    });
    expect(request.changes.find((c) => c.rule === 'method-added')).toMatchObject({
      breaksReceivers: ['agent'],
    });
    const gated = diff((s) => {
      methods(s)['session/delete'] = {
        direction: 'client_to_agent',
        kind: 'request',
        params: 'ReadRequest',
        result: 'ReadResponse',
        description: 'Delete.',
        capability: { in: 'InitializeResponse', pointer: '/capabilities/delete', description: 'Gate.' },
      };
    });
    expect(gated.changes.find((c) => c.subject === 'session/delete')).toMatchObject({
      verdict: 'additive',
      rule: 'method-added-gated',
    });
    const note = diff((s) => {
      methods(s)['session/ping'] = {
        direction: 'agent_to_client',
        kind: 'notification',
        params: 'ReadResponse',
        description: 'Ping.',
      };
    });
    expect(note.changes.find((c) => c.subject === 'session/ping')?.verdict).toBe('additive');
  });

  it('a capability newly required by an existing method breaks old callers', () => {
    const report = diff((s) => {
      methods(s)['session/prompt']!.capability = {
        in: 'InitializeResponse',
        pointer: '/capabilities/delete',
        description: 'Gate.',
      };
    });
    expect(report.changes.find((c) => c.rule === 'capability-required')).toMatchObject({
      verdict: 'breaking',
      breaksSenders: ['client'],
    });
  });

  it('descriptions, titles and examples are editorial', () => {
    const report = diff((s) => {
      defs(s).Role!.description = 'Who spoke.';
      defs(s).Role!.examples = ['user'];
      s.title = 'Renamed';
    });
    expect(report.summary).toEqual({ breaking: 0, additive: 0, editorial: 3 });
  });

  it('a renamed reference with the same structure is editorial only', () => {
    const report = diff((s) => {
      defs(s).Speaker = defs(s).Role!;
      props(s, 'MessageUpdate').role = { $ref: '#/$defs/Speaker' };
      delete defs(s).Role;
    });
    expect(report.changes.map((c) => [c.rule, c.verdict])).toEqual([
      ['definition-removed', 'breaking'],
      ['definition-added', 'additive'],
      ['ref-changed', 'editorial'],
    ]);
    expect(report.changes[0]).toMatchObject({ breaksCode: true, breaksReceivers: [], breaksSenders: [] });
  });

  it('without x-methods, directions come from x-method/x-side annotations (the official form)', () => {
    const official = (): JsonObject => ({
      $defs: {
        PromptRequest: { 'x-method': 'session/prompt', 'x-side': 'agent', type: 'object', properties: {} },
        PromptResponse: {
          'x-method': 'session/prompt',
          'x-side': 'agent',
          type: 'object',
          properties: { messageId: { type: 'string' } },
          required: ['messageId'],
        },
      },
    });
    const next = official();
    ((next.$defs as Record<string, JsonObject>).PromptResponse!.properties as JsonObject).stopReason = {
      type: 'string',
    };
    ((next.$defs as Record<string, JsonObject>).PromptResponse!.required as string[]).push('stopReason');
    const report = diffSchemas({ label: 'a', schema: official() }, { label: 'b', schema: next });
    expect(report.conventions.new.methods).toBe('x-method');
    expect(only(report)).toMatchObject({ flow: 'agent → client', breaksSenders: ['agent'] });
  });

  it('a const-tagged anyOf with a catch-all branch is open, without x-open-enum', () => {
    const kinds = (values: string[]): JsonObject => ({
      $defs: { Kind: { anyOf: [...values.map((v) => ({ type: 'string', const: v })), { type: 'string' }] } },
    });
    const open = diffSchemas(
      { label: 'a', schema: kinds(['read']) },
      { label: 'b', schema: kinds(['read', 'edit']) },
    );
    expect(only(open)).toMatchObject({ verdict: 'additive', rule: 'union-variant-added-open' });
    const closedKinds = (values: string[]): JsonObject => ({
      $defs: { Kind: { anyOf: values.map((v) => ({ type: 'string', const: v })) } },
    });
    const closed = diffSchemas(
      { label: 'a', schema: closedKinds(['read']) },
      { label: 'b', schema: closedKinds(['read', 'edit']) },
    );
    // No method reaches Kind, so both parties are assumed to receive it.
    expect(only(closed)).toMatchObject({ verdict: 'breaking', breaksReceivers: ['client', 'agent'] });
    expect(only(closed).flow).toContain('no method');
  });
});

describe('schema diff reports', () => {
  const report = diff((s) => {
    (defs(s).Role!.enum as string[]).push('system');
    props(s, 'ReadResponse').encoding = { description: 'Enc.', type: 'string' };
    defs(s).Role!.description = 'Who | spoke.';
  });

  it('text names each change with its definition, pointer, flow and reason', () => {
    const text = formatText(report);
    expect(text).toContain('1 breaking, 1 additive, 1 editorial');
    expect(text).toContain(
      'Role  #/$defs/Role/enum  [agent → client] enum-value-added: new value "system" in a closed enum: old receivers reject it — breaks old receivers (client)',
    );
  });

  it('Markdown has a table row per breaking change and a list of the rest', () => {
    const md = formatMarkdown(report);
    expect(md).toContain('| Role | `/$defs/Role/enum` | agent → client | old receivers (client) |');
    expect(md).toContain(
      '- **ReadResponse** `/$defs/ReadResponse/properties/encoding`: new optional field encoding',
    );
  });

  it('JSON is the report object', () => {
    const parsed = JSON.parse(formatJson(report)) as DiffReport;
    expect(parsed.summary).toEqual(report.summary);
    expect(parsed.changes[0]).toMatchObject({ pointer: '/$defs/Role/enum', verdict: 'breaking' });
  });
});

describe('required bump', () => {
  const breaking = diff((s) => (defs(s).Role!.enum as string[]).push('system'));
  const additive = diff((s) => (props(s, 'ReadResponse').encoding = { type: 'string' }));
  const editorial = diff((s) => (defs(s).Role!.description = 'x'));

  it('follows semver from 1.0.0: breaking major, additive minor, editorial patch', () => {
    expect(requiredBump(breaking, '1.2.0').bump).toBe('major');
    expect(requiredBump(additive, '1.2.0').bump).toBe('minor');
    expect(requiredBump(editorial, '1.2.0').bump).toBe('patch');
  });

  it('below 1.0.0 the minor digit is the breaking one (npm caret ranges)', () => {
    expect(requiredBump(breaking, '0.3.1')).toMatchObject({ bump: 'minor' });
    expect(requiredBump(breaking, '0.3.1').because).toContain('Role #/$defs/Role/enum');
    expect(requiredBump(additive, '0.3.1').bump).toBe('patch');
    expect(
      requiredBump(
        diff(() => {}),
        '0.3.1',
      ).bump,
    ).toBe('none');
  });
});

describe('changeset frontmatter', () => {
  it('reads quoted and unquoted package lines', () => {
    const bumps = parseChangeset('---\n"@acp-kit/schema": minor\n@acp-kit/sdk: patch\n---\n\nText: major\n');
    expect([...bumps]).toEqual([
      ['@acp-kit/schema', 'minor'],
      ['@acp-kit/sdk', 'patch'],
    ]);
  });
});
