import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** A client sets an option; later the agent changes one itself and every client hears it. */
export const configOptionChange: SequenceDiagram = {
  id: 'diagram-config-option-change',
  title: 'Changing a configuration option',
  summary:
    'The options arrive with the session/new response. A client sets one with session/set_config_option; every attached client hears config_option_update, and the setter then gets every current value in the response. When the agent changes an option itself, every client hears config_option_update.',
  participants: [
    { id: 'a', label: 'Client A' },
    { id: 'agent', label: 'Agent' },
    { id: 'b', label: 'Client B' },
  ],
  steps: [
    { type: 'arrow', from: 'a', to: 'agent', kind: 'request', label: 'session/new', detail: 'cwd' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'a',
      kind: 'response',
      label: 'result',
      detail: 'configOptions: mode=ask, model=fast',
    },
    {
      type: 'arrow',
      id: 'set',
      from: 'a',
      to: 'agent',
      kind: 'request',
      label: 'session/set_config_option',
      detail: 'mode = "code"',
    },
    { type: 'note', over: ['agent'], lines: ['checks the value, keeps', 'the options with the session'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'a',
      kind: 'notification',
      label: 'session/update',
      detail: 'config_option_update · mode=code',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'b',
      kind: 'notification',
      label: 'session/update',
      detail: 'config_option_update · mode=code',
    },
    {
      type: 'arrow',
      id: 'answered',
      from: 'agent',
      to: 'a',
      kind: 'response',
      label: 'result',
      detail: 'configOptions: every option',
    },
    { type: 'note', over: ['agent'], lines: ['mid-turn, the agent', 'switches the model'] },
    {
      type: 'arrow',
      from: 'agent',
      to: 'a',
      kind: 'notification',
      label: 'session/update',
      detail: 'config_option_update · model=careful',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'b',
      kind: 'notification',
      label: 'session/update',
      detail: 'config_option_update · model=careful',
    },
  ],
  pending: [{ participant: 'a', from: 'set', to: 'answered' }],
};
