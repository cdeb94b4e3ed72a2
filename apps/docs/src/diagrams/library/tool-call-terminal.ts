import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A tool call that embeds a display terminal, its output streamed, the command stopped by the client. */
export const toolCallTerminal: SequenceDiagram = {
  id: 'diagram-tool-call-terminal',
  title: 'A tool call with a display terminal',
  summary:
    'The first tool_call_update creates the tool call, a terminal_update opens a terminal, and a tool_call_content_chunk embeds it in the tool call. Output arrives as terminal_output_chunk updates until the client stops the command with terminal/cancel; the agent reports the exit and the tool call’s final status.',
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
      detail: 'tool_call_update · call_1 in_progress, cancel',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'terminal_update · term_1 "tail -f app.log"',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'tool_call_content_chunk · { terminal: term_1 }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'terminal_output_chunk · "line 1\\n"',
    },
    {
      type: 'arrow',
      id: 'stop',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'terminal/cancel',
      detail: 'term_1',
    },
    {
      type: 'arrow',
      id: 'stopped',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: '{}',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'terminal_update · exitStatus { signal }',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'notification',
      label: 'session/update',
      detail: 'tool_call_update · call_1 cancelled',
    },
    { type: 'note', over: ['agent'], lines: ['the turn goes on'] },
  ],
  pending: [{ participant: 'client', from: 'stop', to: 'stopped' }],
};
