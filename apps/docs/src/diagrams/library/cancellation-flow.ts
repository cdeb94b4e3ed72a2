import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** session/cancel ends the running turn; $/cancel_request withdraws a prompt not inserted yet. */
export const cancellationFlow: SequenceDiagram = {
  id: 'diagram-cancellation',
  title: 'Cancelling a turn and withdrawing a prompt',
  summary:
    'While a turn runs, a second prompt waits uninserted. The client withdraws it with $/cancel_request and the agent answers it -32800. Then session/cancel stops the running turn, which ends with a state_update idle whose stopReason is cancelled.',
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
      detail: 'agent_message_chunk · turn 1 streaming',
    },
    {
      type: 'arrow',
      id: 'held',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt',
      detail: 'id: 7 · waits, not inserted',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'notification',
      label: '$/cancel_request',
      detail: 'requestId: 7',
    },
    {
      type: 'arrow',
      id: 'withdrawn',
      from: 'agent',
      to: 'client',
      kind: 'error',
      label: 'error -32800 (id: 7)',
      detail: 'request cancelled · nothing inserted',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'notification',
      label: 'session/cancel',
      detail: 'sessionId',
    },
    { type: 'note', over: ['agent'], lines: ["the turn's signal aborts;", 'flush what was said'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · idle, cancelled',
    },
  ],
  pending: [{ participant: 'client', from: 'held', to: 'withdrawn' }],
};
