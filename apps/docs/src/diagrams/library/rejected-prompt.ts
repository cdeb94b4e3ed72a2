import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A prompt the agent refuses before inserting it: an error response and no message. */
export const rejectedPrompt: SequenceDiagram = {
  id: 'diagram-rejected-prompt',
  title: 'A prompt rejected before insertion',
  summary:
    'When the agent cannot insert the message it answers with a JSON-RPC error; no messageId exists and no user_message update follows.',
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
      detail: 'id: 8, sessionId: "sess_gone"',
    },
    { type: 'note', over: ['agent'], lines: ['no such session:', 'nothing is inserted'] },
    {
      type: 'arrow',
      id: 'res',
      from: 'agent',
      to: 'client',
      kind: 'error',
      label: 'error (id: 8)',
      detail: '{ code: -32002, message: … }',
    },
  ],
  pending: [{ participant: 'client', from: 'req', to: 'res' }],
};
