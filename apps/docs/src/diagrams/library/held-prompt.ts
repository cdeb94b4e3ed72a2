import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A prompt that arrives while the agent is busy and is held: the request stays open until insertion. */
export const heldPrompt: SequenceDiagram = {
  id: 'diagram-held-prompt',
  title: 'A prompt held while the agent is busy',
  summary:
    'Holding input for later is not acceptance. The request stays pending while the agent finishes its current work, and is answered only when the message is inserted.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
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
      id: 'req',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: "req_2"',
    },
    { type: 'note', over: ['agent'], lines: ['holds the input:', 'not inserted, so no answer yet'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'agent_message_chunk · mess_5',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · idle, end_turn',
    },
    { type: 'note', over: ['agent'], lines: ['inserts the held input', 'as mess_7'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message · mess_7',
    },
    {
      type: 'arrow',
      id: 'res',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: "req_2")',
      detail: '{ messageId: "mess_7" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · running',
    },
  ],
  pending: [{ participant: 'client', from: 'req', to: 'res' }],
};
