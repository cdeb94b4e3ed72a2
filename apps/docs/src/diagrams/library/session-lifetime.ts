import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A session from session/new to session/delete: listed, closed (history kept), resumed, deleted. */
export const sessionLifetime: SequenceDiagram = {
  id: 'diagram-session-lifetime',
  title: 'A session from session/new to session/delete',
  summary:
    'The client creates a session with its directories and MCP servers, finds it again with session/list, closes it (the agent frees it, the history stays), resumes it later, and finally deletes it with its history.',
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
      label: 'session/new',
      detail: 'cwd · additionalDirectories · mcpServers',
    },
    { type: 'note', over: ['agent'], lines: ['onNewSession: connect the', 'MCP servers, or refuse'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: '{ sessionId: "sess_1" }',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/list', detail: '{ cwd }' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: 'sessions: [sess_1, …] · nextCursor',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/close', detail: 'sess_1' },
    {
      type: 'note',
      over: ['agent'],
      lines: ['work cancelled, clients detached;', 'history kept, still listed'],
    },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'result', detail: '{}' },
    { type: 'divider', label: 'later' },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/resume',
      detail: 'sess_1 · mcpServers',
    },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'result', detail: '{}' },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/delete',
      detail: 'sess_1 (session.delete advertised)',
    },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'result', detail: '{}' },
  ],
};
