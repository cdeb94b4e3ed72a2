import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** The happy path: the response arrives once the message is inserted, long before the turn ends. */
export const promptLifecycle: SequenceDiagram = {
  id: 'diagram-prompt-lifecycle',
  title: 'A prompt from request to idle',
  summary:
    'The agent answers session/prompt as soon as it has inserted the user message, and reports the work that follows with session/update notifications.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      id: 'req',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: "req_12345"',
    },
    {
      type: 'note',
      over: ['agent'],
      lines: ['inserts the user message', 'and gives it messageId mess_456def'],
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message · mess_456def',
    },
    {
      type: 'arrow',
      id: 'res',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: "req_12345")',
      detail: '{ messageId: "mess_456def" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · running',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'agent_message_chunk · mess_2',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · idle, end_turn',
    },
  ],
  pending: [{ participant: 'client', from: 'req', to: 'res' }],
};
