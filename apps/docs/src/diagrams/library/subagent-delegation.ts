import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A prompt handed to a subagent: the announcement first, then the child's own updates. */
export const subagentDelegation: SequenceDiagram = {
  id: 'diagram-subagent-delegation',
  title: 'A prompt handed to a subagent',
  summary:
    'The client prompts sess_1. The agent inserts the prompt and answers with its messageId, starts a child session sess_7 and announces it on sess_1 with subagent_update before anything names sess_7. The child’s updates then arrive under sess_7 with no session/resume; the child’s running and idle are mirrored on sess_1 as subagent_update state patches, and the parent ends its own turn.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      id: 'prompt',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'session/prompt (id: 4)',
      detail: 'sess_1 · "compare the two parsers"',
    },
    {
      type: 'arrow',
      id: 'receipt',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result (id: 4)',
      detail: '{ messageId: "mess_9" } — inserted',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update (sess_1)',
      detail: 'subagent_update · sessionId: sess_7 · title: "Researcher" · capabilities.cancel',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update (sess_7)',
      detail: 'state_update running, agent_message_chunk…',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update (sess_1)',
      detail: 'subagent_update · sess_7 · state: { state: "running" }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update (sess_7)',
      detail: 'state_update idle · end_turn',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update (sess_1)',
      detail: 'subagent_update · sess_7 · state: { state: "idle" } · then the parent’s reply and idle',
    },
    {
      type: 'note',
      over: ['client'],
      lines: ['sess_7 may be cancelled (session/cancel),', 'not prompted, closed or renamed'],
    },
  ],
  pending: [{ participant: 'client', from: 'prompt', to: 'receipt' }],
};
