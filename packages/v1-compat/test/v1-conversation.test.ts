import { createHash } from 'node:crypto';
import { ConversationStore } from '@acp-kit/sdk/client';
import { describe, expect, it } from 'vitest';
import { derivedMessageId, userMessageId } from '../src/message-ids.js';
import { ContentHash } from '../src/v1-agent-as-v2/content-hash.js';
import { base64url, Sha256Stream, sha256 } from '../src/sha256.js';
import { V1ConversationTranslator } from '../src/v1-conversation.js';

type Dir = 'client->agent' | 'agent->client';

/** Feeds v1 traffic through a translator into a v2 store, as the inspector page does. */
function fold(traffic: [Dir, unknown][]): ConversationStore {
  const translator = new V1ConversationTranslator();
  const store = new ConversationStore();
  for (const [dir, msg] of traffic) for (const update of translator.take(dir, msg)) store.apply(update);
  return store;
}

const text = (t: string) => ({ type: 'text', text: t });
const update = (sessionUpdate: Record<string, unknown>): [Dir, unknown] => [
  'agent->client',
  { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: sessionUpdate } },
];
const opened: [Dir, unknown][] = [
  [
    'client->agent',
    { jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/tmp', mcpServers: [] } },
  ],
  ['agent->client', { jsonrpc: '2.0', id: 1, result: { sessionId: 's1' } }],
];
const turn: [Dir, unknown][] = [
  [
    'client->agent',
    { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [text('Hello')] } },
  ],
  update({ sessionUpdate: 'agent_message_chunk', content: text('Hi ') }),
  update({ sessionUpdate: 'agent_message_chunk', content: text('there.') }),
  ['agent->client', { jsonrpc: '2.0', id: 2, result: { stopReason: 'end_turn' } }],
];

describe('the browser-safe SHA-256 behind derived message IDs', () => {
  it('matches node:crypto on empty, ASCII, multi-byte and block-boundary inputs', () => {
    const inputs = [
      '',
      'abc',
      'sess_1\nagent_message\n0\n',
      'é漢字🙂',
      ...[55, 56, 63, 64, 65, 200].map((n) => 'x'.repeat(n)),
    ];
    for (const input of inputs)
      expect(base64url(sha256(input))).toBe(createHash('sha256').update(input).digest('base64url'));
  });

  it('hashes text given in pieces as node:crypto hashes it whole, and digests without ending the stream', () => {
    const whole = `${'x'.repeat(63)}é漢字🙂${'y'.repeat(130)}`;
    const stream = new Sha256Stream();
    let start = 0;
    for (const end of [10, 63, 70, whole.length]) {
      stream.update(whole.slice(start, end));
      start = end;
      expect(base64url(stream.digest())).toBe(
        createHash('sha256').update(whole.slice(0, end)).digest('base64url'),
      );
    }
  });

  it('derives the IDs the bridge issued before (m1_ + 22 base64url characters of SHA-256)', () => {
    const expected = `m1_${createHash('sha256').update('sess_1\nuser_message\n3\nepoch').digest('base64url').slice(0, 22)}`;
    expect(derivedMessageId('sess_1', 'user_message', 3, 'epoch')).toBe(expected);
  });
});

describe('V1ConversationTranslator', () => {
  it('shows a v1 turn without an echo as the prompt, the reply in one message and the turn ended', () => {
    const snapshot = fold([...opened, ...turn]).snapshot('s1');
    expect(
      snapshot.messages.map((m) => [m.kind, m.content.map((b) => (b as { text: string }).text).join('')]),
    ).toEqual([
      ['user_message', 'Hello'],
      ['agent_message', 'Hi there.'],
    ]);
    // A forwarded prompt's ID is derived from what it says (the first with that content).
    expect(snapshot.messages[0]!.messageId).toBe(
      userMessageId('s1', ContentHash.of([{ type: 'text', text: 'Hello' }]), 0),
    );
    expect(snapshot.state.state).toBe('idle');
    expect(snapshot.state.stopReason).toBe('end_turn');
  });

  it('takes the agent’s echo as the prompt’s message and a permission request as evidence of insertion', () => {
    const store = fold([
      ...opened,
      [
        'client->agent',
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'session/prompt',
          params: { sessionId: 's1', prompt: [text('Write it')] },
        },
      ],
      [
        'agent->client',
        {
          jsonrpc: '2.0',
          id: 0,
          method: 'session/request_permission',
          params: { sessionId: 's1', toolCall: { toolCallId: 't1' }, options: [] },
        },
      ],
    ]);
    const snapshot = store.snapshot('s1');
    expect(snapshot.messages.map((m) => m.kind)).toEqual(['user_message']);
    expect(snapshot.state.state).toBe('running');
    const echoed = fold([
      ...opened,
      [
        'client->agent',
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'session/prompt',
          params: { sessionId: 's1', prompt: [text('Hello')] },
        },
      ],
      update({
        sessionUpdate: 'user_message_chunk',
        messageId: 'u-agent',
        content: text('Hello (as the agent saw it)'),
      }),
      ['agent->client', { jsonrpc: '2.0', id: 2, result: { stopReason: 'cancelled' } }],
    ]).snapshot('s1');
    expect(echoed.messages.map((m) => [m.messageId, (m.content[0] as { text: string }).text])).toEqual([
      ['u-agent', 'Hello (as the agent saw it)'],
    ]);
    expect(echoed.state.stopReason).toBe('cancelled');
  });

  it('shows a session/load replay once, under the IDs the live turn had', () => {
    const store = fold([
      ...opened,
      ...turn,
      [
        'client->agent',
        {
          jsonrpc: '2.0',
          id: 3,
          method: 'session/load',
          params: { sessionId: 's1', cwd: '/tmp', mcpServers: [] },
        },
      ],
      update({ sessionUpdate: 'user_message_chunk', content: text('Hello') }),
      update({ sessionUpdate: 'agent_message_chunk', content: text('Hi ') }),
      update({ sessionUpdate: 'agent_message_chunk', content: text('there.') }),
      ['agent->client', { jsonrpc: '2.0', id: 3, result: {} }],
    ]);
    expect(
      store
        .snapshot('s1')
        .messages.map((m) => [m.kind, m.content.map((b) => (b as { text: string }).text).join('')]),
    ).toEqual([
      ['user_message', 'Hello'],
      ['agent_message', 'Hi there.'],
    ]);
  });

  it('shows no turn for a refused prompt and ends an inserted one that failed in error', () => {
    const refused = fold([
      ...opened,
      [
        'client->agent',
        { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [text('x')] } },
      ],
      ['agent->client', { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'no' } }],
    ]).snapshot('s1');
    expect(refused.messages).toEqual([]);
    const failed = fold([
      ...opened,
      [
        'client->agent',
        { jsonrpc: '2.0', id: 2, method: 'session/prompt', params: { sessionId: 's1', prompt: [text('x')] } },
      ],
      update({ sessionUpdate: 'agent_thought_chunk', content: text('thinking') }),
      ['agent->client', { jsonrpc: '2.0', id: 2, error: { code: -32603, message: 'boom' } }],
    ]).snapshot('s1');
    expect(failed.messages.map((m) => m.kind)).toEqual(['user_message', 'agent_thought']);
    expect(failed.state.stopReason).toBe('error');
  });

  it('ignores what is not a JSON-RPC message', () => {
    const translator = new V1ConversationTranslator();
    for (const garbage of [
      null,
      'text',
      42,
      [],
      { method: 'session/update', params: { sessionId: 's1', update: 7 } },
    ])
      expect(translator.take('agent->client', garbage)).toEqual([]);
  });
});
