import type { KnownSessionConfigOption, SessionConfigOption } from '@acp-kit/schema';
import { Agent } from '@acp-kit/sdk';

/** A mode and a model (both config options in v2), and a switch that only makes sense in one mode. */
const initialOptions: SessionConfigOption[] = [
  {
    type: 'select',
    configId: 'mode',
    name: 'Mode',
    category: 'mode',
    currentValue: 'ask',
    options: [
      { value: 'ask', name: 'Ask', description: 'Answers without changing files' },
      { value: 'code', name: 'Code' },
    ],
  },
  {
    type: 'select',
    configId: 'model',
    name: 'Model',
    category: 'model',
    currentValue: 'fast',
    options: [
      { value: 'fast', name: 'Fast' },
      { value: 'careful', name: 'Careful' },
    ],
  },
  { type: 'boolean', configId: 'auto-edit', name: 'Edit without asking', currentValue: false },
];

export function createConfigurableAgent(): Agent {
  return new Agent({
    info: { name: 'configurable-agent', version: '1.0.0' },
    // Sent in the session/new response and kept with the session (also across restarts).
    onNewSession: () => ({ configOptions: initialOptions }),
    // The built-in handler checks the value and sets it; this one also turns
    // auto-edit off when the mode goes back to "ask". Every option is returned.
    setConfigOption(request, { current, builtIn }) {
      const next = builtIn(request, current);
      const mode = next.find((o) => o.configId === 'mode')?.currentValue;
      return mode === 'ask' ? withValue(next, 'auto-edit', false) : next;
    },
    async onPrompt(prompt, { session }) {
      await prompt.insert();
      await session.running();
      const asked = prompt.content.find((b) => b.type === 'text');
      if (asked?.type === 'text' && asked.text === '/careful') {
        // The agent changes an option itself: clients hear a config_option_update.
        const options = await session.configOptions();
        await session.setConfigOptions(withValue(options, 'model', 'careful'));
      }
      await session.idle('end_turn');
    },
  });
}

/** The options with one select or boolean option set to `value`. */
function withValue(
  options: readonly SessionConfigOption[],
  configId: string,
  value: string | boolean,
): SessionConfigOption[] {
  return options.map((option) => {
    // The union is open (a newer peer may send other types): narrow it to the known ones.
    const known = option as KnownSessionConfigOption;
    if (known.configId !== configId) return option;
    if (known.type === 'select' && typeof value === 'string') return { ...known, currentValue: value };
    if (known.type === 'boolean' && typeof value === 'boolean') return { ...known, currentValue: value };
    return option;
  });
}
