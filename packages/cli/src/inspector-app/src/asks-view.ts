import { el } from './dom.js';

type Fields = Readonly<Record<string, unknown>>;

const record = (value: unknown): Fields | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Fields) : undefined;

const str = (value: unknown): string => (value === undefined || value === null ? '' : String(value));

/** A request of the agent waiting for the user: a permission request or an elicitation. */
export interface Ask {
  /** The request's JSON-RPC id, as JSON (the key of the card). */
  readonly key: string;
  readonly method: string;
  readonly params: Fields;
  /** When the page received it (ms since the page loaded). */
  readonly since: number;
  /** Answers the agent's request with this result. */
  answer(result: unknown): void;
}

/** The card of a permission request: one button per option, and Cancel. */
function permissionCard(ask: Ask): HTMLElement {
  const options = Array.isArray(ask.params.options) ? ask.params.options.map((o) => record(o) ?? {}) : [];
  return el(
    'div',
    {
      class: 'permission ask',
      'data-request-id': ask.key,
      role: 'group',
      'aria-label': 'permission request',
    },
    el('p', {}, `${str(ask.params.title ?? 'permission')} (session ${str(ask.params.sessionId)})`),
    ...options.map((option) =>
      el(
        'button',
        {
          type: 'button',
          'data-option-id': str(option.optionId),
          'data-option-kind': str(option.kind),
          onclick: () => ask.answer({ outcome: { outcome: 'selected', optionId: option.optionId } }),
        },
        str(option.name ?? option.optionId),
      ),
    ),
    el(
      'button',
      { type: 'button', class: 'cancel', onclick: () => ask.answer({ outcome: { outcome: 'cancelled' } }) },
      'Cancel',
    ),
  );
}

/** The allowed values of a string or multi-select field, with their labels. */
function choices(schema: Fields): [value: string, label: string][] | undefined {
  if (Array.isArray(schema.enum)) {
    const names = Array.isArray(schema.enumNames) ? schema.enumNames : [];
    return schema.enum.map((value, i) => [str(value), str(names[i] ?? value)]);
  }
  const variants = Array.isArray(schema.oneOf)
    ? schema.oneOf
    : Array.isArray(schema.anyOf)
      ? schema.anyOf
      : undefined;
  if (variants)
    return variants.map((variant) => {
      const v = record(variant) ?? {};
      return [str(v.const), str(v.title ?? v.const)];
    });
  return undefined;
}

/** One field of an elicitation form, and how to read its answer. */
function field(name: string, schema: Fields, required: boolean): { node: HTMLElement; read(): unknown } {
  const label = str(schema.title ?? name);
  const help = schema.description ? el('small', {}, ` ${str(schema.description)}`) : undefined;
  const id = `elicit-${name}`;
  if (schema.type === 'boolean') {
    const input = el('input', { type: 'checkbox', name, id, checked: schema.default === true });
    return { node: el('label', {}, input, ` ${label}`, help), read: () => input.checked };
  }
  if (schema.type === 'number' || schema.type === 'integer') {
    const input = el('input', {
      type: 'number',
      name,
      id,
      required,
      step: schema.type === 'integer' ? '1' : 'any',
      min: schema.minimum === undefined || schema.minimum === null ? undefined : str(schema.minimum),
      max: schema.maximum === undefined || schema.maximum === null ? undefined : str(schema.maximum),
      value: schema.default === undefined ? undefined : str(schema.default),
    });
    return {
      node: el('label', {}, `${label} `, input, help),
      read: () => (input.value === '' ? undefined : Number(input.value)),
    };
  }
  if (schema.type === 'array') {
    const options = choices(record(schema.items) ?? {}) ?? [];
    const boxes = options.map(([value, text]) => ({
      value,
      input: el('input', { type: 'checkbox', name, value }),
      text,
    }));
    return {
      node: el(
        'fieldset',
        {},
        el('legend', {}, label),
        ...boxes.map((box) => el('label', {}, box.input, ` ${box.text}`)),
        help,
      ),
      read: () => boxes.filter((box) => box.input.checked).map((box) => box.value),
    };
  }
  const options = choices(schema);
  if (options) {
    const select = el(
      'select',
      { name, id, required },
      ...(required ? [] : [el('option', { value: '' }, '—')]),
      ...options.map(([value, text]) => el('option', { value, selected: value === schema.default }, text)),
    );
    return {
      node: el('label', {}, `${label} `, select, help),
      read: () => (select.value === '' ? undefined : select.value),
    };
  }
  const input = el('input', {
    type: 'text',
    name,
    id,
    required,
    minlength:
      schema.minLength === undefined || schema.minLength === null ? undefined : str(schema.minLength),
    maxlength:
      schema.maxLength === undefined || schema.maxLength === null ? undefined : str(schema.maxLength),
    value: schema.default === undefined ? undefined : str(schema.default),
  });
  return {
    node: el('label', {}, `${label} `, input, help),
    read: () => (input.value === '' ? undefined : input.value),
  };
}

/**
 * The card of an elicitation: a form built from `requestedSchema` (text, number, boolean, choice
 * and multi-choice fields; the browser checks required ones) answered `accept` with the content,
 * or `decline` / `cancel`. A URL elicitation shows its URL as text (the page opens nothing).
 */
function elicitationCard(ask: Ask): HTMLElement {
  const p = ask.params;
  const actions = [
    el(
      'button',
      { type: 'button', class: 'decline', onclick: () => ask.answer({ action: 'decline' }) },
      'Decline',
    ),
    el(
      'button',
      { type: 'button', class: 'cancel', onclick: () => ask.answer({ action: 'cancel' }) },
      'Cancel',
    ),
  ];
  if (p.mode === 'url') {
    return el(
      'div',
      { class: 'elicitation ask', 'data-request-id': ask.key, 'data-mode': 'url', role: 'group' },
      el('p', {}, str(p.message)),
      el('p', {}, 'Open this address yourself: ', el('code', { class: 'url' }, str(p.url))),
      el(
        'button',
        { type: 'button', class: 'accept', onclick: () => ask.answer({ action: 'accept' }) },
        'Done',
      ),
      ...actions,
    );
  }
  const schema = record(p.requestedSchema) ?? {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(str) : []);
  const fields = Object.entries(record(schema.properties) ?? {}).map(([name, property]) => ({
    name,
    ...field(name, record(property) ?? {}, required.has(name)),
  }));
  const form = el(
    'form',
    {
      class: 'elicitation ask',
      'data-request-id': ask.key,
      'data-mode': 'form',
      onsubmit: (event: Event) => {
        event.preventDefault();
        const content: Record<string, unknown> = {};
        for (const f of fields) {
          const value = f.read();
          if (value !== undefined) content[f.name] = value;
        }
        ask.answer({ action: 'accept', content });
      },
    },
    el('p', {}, `${str(p.message)}${p.sessionId ? ` (session ${str(p.sessionId)})` : ''}`),
    ...fields.map((f) => f.node),
    el('button', { type: 'submit', class: 'accept' }, 'Submit'),
    ...actions,
  );
  return form;
}

/** The card for one waiting request of the agent. */
export function askCard(ask: Ask): HTMLElement {
  return ask.method === 'elicitation/create' ? elicitationCard(ask) : permissionCard(ask);
}
