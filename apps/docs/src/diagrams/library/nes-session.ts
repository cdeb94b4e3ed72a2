import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** Next edit suggestions: an NES session beside a chat session on one connection. */
export const nesSession: SequenceDiagram = {
  id: 'diagram-nes-session',
  title: 'An NES session beside a chat session',
  summary:
    'The editor offers position encodings in initialize; the agent answers with its nes capability (the document events and context it wants) and the one encoding it picked. A chat session (session/new, session/prompt) runs as usual. Beside it the editor opens an NES session with nes/start, which has its own sessionId. It sends document/didOpen and, as the user types, document/didChange in the sync kind the agent asked for. It asks nes/suggest at the cursor, with the document version and only the context the agent wanted; the agent answers with suggestions of the kinds the editor advertised. The editor reports nes/accept or nes/reject, and ends with nes/close.',
  participants: [
    { id: 'client', label: 'Editor (client)' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'initialize',
      detail: 'positionEncodings: [utf-8, utf-16], nes: { jump, rename }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: 'nes: { events, context }, positionEncoding: utf-8',
    },
    { type: 'divider', label: 'chat session' },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/new' },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'sessionId: sess_1' },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/prompt (sess_1)' },
    { type: 'divider', label: 'NES session' },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'nes/start' },
    { type: 'arrow', from: 'agent', to: 'client', kind: 'response', label: 'sessionId: nes_1' },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'notification',
      label: 'document/didOpen',
      detail: 'uri, version 1, text',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'notification',
      label: 'document/didChange',
      detail: 'version 2, ranges in utf-8',
    },
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'nes/suggest',
      detail: 'version 2, position, context asked for',
    },
    { type: 'note', over: ['agent'], lines: ['checks the version', 'and the position'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'suggestions',
      detail: 'edit, rename (kinds the editor took)',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'notification', label: 'nes/accept (s1)' },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'nes/close (nes_1)' },
  ],
};
