/**
 * Valid JSON-RPC messages built from the schema's own examples, for the codec fuzzer. Every
 * example under `schema/v2/examples/<Definition>/` is a known-good value of that definition;
 * fast-check recombines them into whole messages for one side of the connection.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';

const EXAMPLES = fileURLToPath(new URL('../../../../schema/v2/examples', import.meta.url));

/** Every example of one definition (an empty list when the schema has none). */
export function examplesOf(definition: string): unknown[] {
  const dir = join(EXAMPLES, definition);
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  return files.sort().map((file) => JSON.parse(readFileSync(join(dir, file), 'utf8')) as unknown);
}

function examplesArb(...definitions: string[]): fc.Arbitrary<unknown> {
  const all = definitions.flatMap(examplesOf);
  if (all.length === 0) throw new Error(`no examples for ${definitions.join(', ')}`);
  return fc.constantFrom(...all).map((value) => structuredClone(value));
}

const CONTENT_DEFS = [
  'ContentBlock',
  'TextContent',
  'ImageContent',
  'AudioContent',
  'ResourceLink',
  'EmbeddedResource',
  'ExtensionContent',
];
const UPDATE_DEFS = [
  'SessionUpdate',
  'UserMessageUpdate',
  'UserMessageChunk',
  'AgentMessageUpdate',
  'AgentMessageChunk',
  'AgentThoughtUpdate',
  'AgentThoughtChunk',
  'StateUpdate',
  'IdleStateUpdate',
  'RunningStateUpdate',
  'RequiresActionStateUpdate',
  'ToolCall',
  'ToolCallUpdate',
  'PlanUpdate',
  'UsageUpdate',
  'ExtensionSessionUpdate',
];

/** Which side of the connection receives the generated messages. */
export type Side = 'agent' | 'client';

/** Request ids are unique per run so every reply can be matched to exactly one line. */
export function idAllocator(): () => string | number {
  let next = 1;
  return () => {
    const n = next++;
    return n % 2 === 0 ? n : `f${n}`;
  };
}

function request(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', id: 0, method, params };
}

function notification(method: string, params: unknown): Record<string, unknown> {
  return { jsonrpc: '2.0', method, params };
}

const responseArb = fc.oneof(
  fc.record({ jsonrpc: fc.constant('2.0'), id: fc.integer({ min: 1, max: 1000 }), result: fc.jsonValue() }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.oneof(fc.constant(null), fc.integer({ min: 1, max: 1000 })),
    error: fc.record({ code: fc.integer({ min: -32800, max: -32000 }), message: fc.string() }),
  }),
);

const extensionArb = fc.oneof(
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: fc.constant(0),
    method: fc.constantFrom('_ext/ping', 'unknown/method', 'session/list', 'fs/read_text_file'),
    params: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.constantFrom('_ext/note', 'unknown/note'),
    params: fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 })),
  }),
);

/**
 * Valid messages a peer could send to `side`. `sessionIds` are sessions that exist on the agent
 * (so some requests succeed and exercise the handlers, not only the validator).
 */
export function seedArb(side: Side, sessionIds: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const sessionId = fc.constantFrom('sess_789xyz', ...sessionIds);
  const content = examplesArb(...CONTENT_DEFS);
  const withSession = <T extends Record<string, unknown>>(value: unknown, id: string): T =>
    ({ ...(value as T), sessionId: id }) as T;
  if (side === 'agent') {
    return fc.oneof(
      examplesArb('InitializeRequest').map((p) => request('initialize', p)),
      examplesArb('NewSessionRequest').map((p) => request('session/new', p)),
      fc
        .tuple(examplesArb('ResumeSessionRequest'), sessionId)
        .map(([p, id]) => request('session/resume', withSession(p, id))),
      fc
        .tuple(examplesArb('PromptRequest'), sessionId, fc.array(content, { minLength: 1, maxLength: 3 }))
        .map(([p, id, blocks]) =>
          request('session/prompt', { ...withSession<Record<string, unknown>>(p, id), prompt: blocks }),
        ),
      fc
        .tuple(examplesArb('CancelNotification'), sessionId)
        .map(([p, id]) => notification('session/cancel', withSession(p, id))),
      examplesArb('CancelRequestNotification').map((p) => notification('$/cancel_request', p)),
      responseArb,
      extensionArb,
    );
  }
  return fc.oneof(
    {
      weight: 4,
      arbitrary: examplesArb('SessionNotification').map((p) => notification('session/update', p)),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(examplesArb(...UPDATE_DEFS), sessionId)
        .map(([update, id]) => notification('session/update', { sessionId: id, update })),
    },
    {
      weight: 2,
      arbitrary: examplesArb('RequestPermissionRequest').map((p) => request('session/request_permission', p)),
    },
    {
      weight: 1,
      arbitrary: examplesArb('CancelRequestNotification').map((p) => notification('$/cancel_request', p)),
    },
    { weight: 1, arbitrary: responseArb },
    { weight: 1, arbitrary: extensionArb },
  );
}
