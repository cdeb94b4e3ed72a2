import type { ConversationSnapshot } from '@acp-kit/sdk/client';
import { el } from './dom.js';

type Fields = Readonly<Record<string, unknown>>;

const record = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** A configuration value chosen in the page: a select's value ID or a boolean. */
export type ConfigChoice = { type: 'id'; value: string } | { type: 'boolean'; value: boolean };

/** The values of a select option, flattened from a flat list or groups, with the group's name. */
function selectValues(options: unknown): { value: string; name: string; group?: string }[] {
  const out: { value: string; name: string; group?: string }[] = [];
  for (const item of Array.isArray(options) ? options : []) {
    const o = record(item) ?? {};
    if (Array.isArray(o.options)) {
      for (const inner of o.options) {
        const v = record(inner) ?? {};
        out.push({ value: str(v.value), name: str(v.name ?? v.value), group: str(o.name) });
      }
    } else out.push({ value: str(o.value), name: str(o.name ?? o.value) });
  }
  return out;
}

/**
 * The session's configuration options (modes, models… — v2 carries modes as options of category
 * `mode`) as controls: a select per `select` option, a checkbox per `boolean` one; an option of a
 * type this page does not know is listed, not editable. Changing one calls `onChange`.
 */
export function configControls(
  snapshot: ConversationSnapshot,
  onChange: (configId: string, choice: ConfigChoice) => void,
): HTMLElement {
  const options = snapshot.configOptions ?? [];
  if (options.length === 0) return el('p', { class: 'empty' }, 'No configuration options.');
  return el(
    'div',
    { class: 'config-options' },
    ...options.map((option) => {
      const o = option as unknown as Fields;
      const configId = str(o.configId);
      const label = `${str(o.name)}${o.category ? ` (${str(o.category)})` : ''}`;
      if (o.type === 'select') {
        const select = el(
          'select',
          {
            'data-config-id': configId,
            onchange: (event: Event) =>
              onChange(configId, { type: 'id', value: (event.target as HTMLSelectElement).value }),
          },
          ...selectValues(o.options).map((value) =>
            el(
              'option',
              { value: value.value, selected: value.value === str(o.currentValue) },
              value.group ? `${value.group}: ${value.name}` : value.name,
            ),
          ),
        );
        return el('label', { class: 'config-option' }, `${label} `, select);
      }
      if (o.type === 'boolean') {
        const box = el('input', {
          type: 'checkbox',
          'data-config-id': configId,
          checked: o.currentValue === true,
          onchange: (event: Event) =>
            onChange(configId, { type: 'boolean', value: (event.target as HTMLInputElement).checked }),
        });
        return el('label', { class: 'config-option' }, box, ` ${label}`);
      }
      return el('p', { class: 'config-option unknown' }, `${label}: ${str(o.type)} (not editable here)`);
    }),
  );
}

/** One slash command the session offers. */
export interface Command {
  name: string;
  description: string;
  hint: string;
}

/** The commands of a session (the last `available_commands_update`, or the session response's). */
export function commandsOf(snapshot: ConversationSnapshot | undefined): Command[] {
  return (snapshot?.availableCommands ?? []).map((command) => {
    const c = command as unknown as Fields;
    return { name: str(c.name), description: str(c.description), hint: str(record(c.input)?.hint) };
  });
}

/**
 * The slash command palette under the prompt: shown while the prompt is `/` and a word, listing the
 * session's commands that start with it. Arrow keys move, Enter or Tab picks, Escape closes.
 */
export class Palette {
  readonly #list: HTMLElement;
  readonly #input: HTMLTextAreaElement;
  #commands: Command[] = [];
  #shown: Command[] = [];
  #active = 0;

  constructor(input: HTMLTextAreaElement, list: HTMLElement) {
    this.#input = input;
    this.#list = list;
    input.addEventListener('input', () => this.update());
    input.addEventListener('keydown', (event) => this.#key(event));
    input.addEventListener('blur', () => setTimeout(() => this.#close(), 150));
  }

  /** Sets the commands of the selected session. */
  setCommands(commands: Command[]): void {
    if (JSON.stringify(commands) === JSON.stringify(this.#commands)) return;
    this.#commands = commands;
    // Commands that arrive while "/" is being typed show at once.
    if (!this.#list.hidden || (document.activeElement === this.#input && this.#input.value.startsWith('/')))
      this.update();
  }

  /** Shows the commands that match what is typed, or hides the palette. */
  update(): void {
    const match = /^\/(\S*)$/.exec(this.#input.value);
    this.#shown = match ? this.#commands.filter((command) => command.name.startsWith(match[1] ?? '')) : [];
    if (this.#shown.length === 0) {
      this.#close();
      return;
    }
    this.#active = Math.min(this.#active, this.#shown.length - 1);
    this.#list.replaceChildren(
      ...this.#shown.map((command, i) =>
        el(
          'div',
          {
            role: 'option',
            id: `command-${command.name}`,
            'data-command': command.name,
            'aria-selected': i === this.#active ? 'true' : 'false',
            onmousedown: (event: Event) => {
              event.preventDefault();
              this.#pick(command);
            },
          },
          el('strong', {}, `/${command.name}`),
          command.hint ? el('em', {}, ` <${command.hint}>`) : undefined,
          ` ${command.description}`,
        ),
      ),
    );
    this.#list.hidden = false;
    this.#input.setAttribute('aria-expanded', 'true');
    this.#input.setAttribute('aria-activedescendant', `command-${this.#shown[this.#active]?.name}`);
  }

  #close(): void {
    this.#list.hidden = true;
    this.#shown = [];
    this.#active = 0;
    this.#input.setAttribute('aria-expanded', 'false');
    this.#input.removeAttribute('aria-activedescendant');
  }

  #pick(command: Command): void {
    this.#input.value = `/${command.name}${command.hint ? ' ' : ''}`;
    this.#close();
    this.#input.focus();
  }

  #key(event: KeyboardEvent): void {
    if (this.#list.hidden || this.#shown.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      this.#active = (this.#active + step + this.#shown.length) % this.#shown.length;
      this.update();
    } else if (event.key === 'Enter' || event.key === 'Tab') {
      event.preventDefault();
      const command = this.#shown[this.#active];
      if (command) this.#pick(command);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      this.#close();
    }
  }
}
