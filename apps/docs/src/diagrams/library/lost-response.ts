import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** The one case the returned messageId cannot fix: the response never reaches the submitter. */
export const lostResponse: SequenceDiagram = {
  id: 'diagram-lost-response',
  title: 'A lost prompt response',
  summary:
    'The agent inserts the message and answers, but the connection drops before the answer arrives. After reconnecting, the client sees the message in replay but cannot know that it is its own submission.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: 3 · "deploy to staging"',
    },
    { type: 'note', over: ['agent'], lines: ['inserts the message', 'as mess_9'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 3)',
      detail: '{ messageId: "mess_9" }',
      lost: true,
    },
    { type: 'divider', label: 'the connection drops' },
    {
      type: 'arrow',
      id: 'resume',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/resume',
      detail: 'replayFrom: { type: "start" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message · mess_9 · "deploy to staging"',
    },
    { type: 'arrow', id: 'resumed', from: 'agent', to: 'client', kind: 'response', label: 'result' },
    {
      type: 'note',
      over: ['client', 'agent'],
      tone: 'warning',
      lines: [
        'Is mess_9 the prompt this client sent? It cannot tell.',
        'Same text proves nothing, and a retry may insert a second message.',
      ],
    },
  ],
  pending: [{ participant: 'client', from: 'resume', to: 'resumed' }],
};
