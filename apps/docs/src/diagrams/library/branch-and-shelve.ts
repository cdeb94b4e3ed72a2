import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** Fork a session, then archive the original: the unstable session methods in one flow. */
export const branchAndShelve: SequenceDiagram = {
  id: 'diagram-branch-and-shelve',
  title: 'Forking a session, then archiving the original',
  summary:
    'The client forks a session: the agent answers with a new sessionId once the fork holds the original’s retained history, and the client resumes the fork with replay to show it. The client then archives the original (closed first if work ran there); session/status reports it saved, and the default session/list leaves it out.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      id: 'fork',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/fork (id: 5)',
      detail: 'sessionId: "sess_1"',
    },
    {
      type: 'arrow',
      id: 'forked',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 5)',
      detail: '{ sessionId: "sess_2" }',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/resume (id: 6)',
      detail: 'sess_2 · replayFrom: { type: "start" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'user_message · mess_1 (the original’s ID)',
    },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'result (id: 6)' },
    {
      type: 'arrow',
      id: 'archive',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/archive (id: 7)',
      detail: 'sessionId: "sess_1"',
    },
    { type: 'arrow', id: 'archived', from: 'agent', to: 'client', kind: 'response', label: 'result (id: 7)' },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/status (id: 8)',
      detail: 'sessionId: "sess_1"',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 8)',
      detail: '{ status: "saved" }',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/list (id: 9)' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 9)',
      detail: 'sess_2 (archived: false) only',
    },
    {
      type: 'note',
      over: ['agent'],
      lines: ['sess_1 keeps its ID and history;', 'unarchive lists it again'],
    },
  ],
  pending: [
    { participant: 'client', from: 'fork', to: 'forked' },
    { participant: 'client', from: 'archive', to: 'archived' },
  ],
};
