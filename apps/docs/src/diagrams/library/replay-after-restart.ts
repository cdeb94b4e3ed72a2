import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A retained message comes back under the messageId the client was given before the restart. */
export const replayAfterRestart: SequenceDiagram = {
  id: 'diagram-replay-after-restart',
  title: 'Replay after an agent restart',
  summary:
    'After the agent restarts, the client resumes the session with replayFrom start. The agent replays the retained history under the original messageIds, clearing each message before streaming its chunks, and answers session/resume when the replay is done.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/prompt', detail: 'id: 1' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 1)',
      detail: '{ messageId: "mess_1" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message, agent_message …',
    },
    { type: 'divider', label: 'the agent restarts; the client reconnects' },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'initialize', detail: 'id: 1' },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'result (id: 1)' },
    {
      type: 'arrow',
      id: 'resume',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/resume (id: 2)',
      detail: 'replayFrom: { type: "start" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message · mess_1 · content: []',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message_chunk · mess_1',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'agent_message · mess_2',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'state_update · idle',
    },
    { type: 'arrow', id: 'resumed', from: 'agent', to: 'client', kind: 'response', label: 'result (id: 2)' },
    { type: 'note', over: ['client'], lines: ['mess_1 is the prompt', 'it sent before the restart'] },
  ],
  pending: [{ participant: 'client', from: 'resume', to: 'resumed' }],
};
