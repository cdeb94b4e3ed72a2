import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** Two clients send the same text with the same JSON-RPC id; only messageId tells the submissions apart. */
export const twoClients: SequenceDiagram = {
  id: 'diagram-two-clients',
  title: 'Two clients on one session',
  summary:
    'Two clients on separate connections submit identical prompts with the same JSON-RPC id. The agent inserts two messages with distinct messageIds; every client sees both, and each submitter learns which one is its own from its response.',
  participants: [
    { id: 'a', label: 'Client A' },
    { id: 'agent', label: 'Agent' },
    { id: 'b', label: 'Client B' },
  ],
  steps: [
    {
      type: 'arrow',
      id: 'reqA',
      from: 'a',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: 1 · "run the tests"',
    },
    {
      type: 'arrow',
      id: 'reqB',
      from: 'b',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: 1 · "run the tests"',
    },
    { type: 'note', over: ['agent'], lines: ['two submissions,', 'two messages: mess_41, mess_42'] },
    { type: 'arrow', from: 'agent', to: 'a', kind: 'notification', label: 'user_message', detail: 'mess_41' },
    { type: 'arrow', from: 'agent', to: 'b', kind: 'notification', label: 'user_message', detail: 'mess_41' },
    {
      type: 'arrow',
      id: 'resA',
      from: 'agent',
      to: 'a',
      kind: 'response',
      label: 'result (id: 1)',
      detail: '{ messageId: "mess_41" }',
    },
    { type: 'arrow', from: 'agent', to: 'a', kind: 'notification', label: 'user_message', detail: 'mess_42' },
    { type: 'arrow', from: 'agent', to: 'b', kind: 'notification', label: 'user_message', detail: 'mess_42' },
    {
      type: 'arrow',
      id: 'resB',
      from: 'agent',
      to: 'b',
      kind: 'response',
      label: 'result (id: 1)',
      detail: '{ messageId: "mess_42" }',
    },
    {
      type: 'note',
      over: ['a', 'b'],
      tone: 'warning',
      lines: [
        'Same text, same JSON-RPC id, different messages.',
        'Each client recognises its own by the messageId in its response.',
      ],
    },
  ],
  pending: [
    { participant: 'a', from: 'reqA', to: 'resA' },
    { participant: 'b', from: 'reqB', to: 'resB' },
  ],
};
