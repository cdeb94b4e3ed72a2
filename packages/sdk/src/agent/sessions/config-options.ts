import type { SessionConfigOption, SetSessionConfigOptionRequest } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../../rpc/errors.js';

/** The values a select option offers (flat or grouped). */
function selectValues(option: object): string[] {
  const values: string[] = [];
  for (const item of ((option as { options?: unknown }).options ?? []) as Array<Record<string, unknown>>) {
    if (Array.isArray(item.options)) {
      for (const inner of item.options as Array<{ value?: unknown }>) {
        if (typeof inner.value === 'string') values.push(inner.value);
      }
    } else if (typeof item.value === 'string') values.push(item.value);
  }
  return values;
}

function invalid(message: string, pointer: string, expected: string): RpcError {
  return new RpcError(ErrorCodes.InvalidParams, message, { pointer, expected });
}

/**
 * The built-in `session/set_config_option`: finds the option by `configId` and sets its
 * `currentValue` — a value the select option lists (`type: 'id'`), or a boolean for a boolean
 * option (`type: 'boolean'`). Returns every option after the change. An unknown option, a value
 * the option does not offer, or a value type that does not fit the option is -32602 with the
 * JSON pointer of the offending field.
 */
export function applyConfigOption(
  request: SetSessionConfigOptionRequest,
  current: readonly SessionConfigOption[],
): SessionConfigOption[] {
  const index = current.findIndex((option) => option.configId === request.configId);
  if (index < 0) {
    const ids = current.map((option) => option.configId);
    throw invalid(
      `Unknown configuration option ${JSON.stringify(request.configId)}`,
      '/params/configId',
      ids.length > 0
        ? `one of ${ids.map((id) => JSON.stringify(id)).join(', ')}`
        : 'no options: this session has none',
    );
  }
  const option = current[index]!;
  let changed: SessionConfigOption;
  if (option.type === 'select') {
    if (request.type !== 'id') {
      throw invalid(
        `Option ${JSON.stringify(option.configId)} is a select option; set it with type "id"`,
        '/params/type',
        '"id"',
      );
    }
    const values = selectValues(option);
    if (typeof request.value !== 'string' || !values.includes(request.value)) {
      throw invalid(
        `Option ${JSON.stringify(option.configId)} has no value ${JSON.stringify(request.value)}`,
        '/params/value',
        `one of ${values.map((v) => JSON.stringify(v)).join(', ')}`,
      );
    }
    changed = { ...option, currentValue: request.value };
  } else if (option.type === 'boolean') {
    if (request.type !== 'boolean' || typeof request.value !== 'boolean') {
      throw invalid(
        `Option ${JSON.stringify(option.configId)} is a boolean option; set it with type "boolean" and true or false`,
        request.type !== 'boolean' ? '/params/type' : '/params/value',
        request.type !== 'boolean' ? '"boolean"' : 'true or false',
      );
    }
    changed = { ...option, currentValue: request.value };
  } else {
    throw invalid(
      `Option ${JSON.stringify(option.configId)} has type ${JSON.stringify(option.type)}, which this agent cannot set`,
      '/params/configId',
      'a select or boolean option',
    );
  }
  return current.map((existing, i) => (i === index ? changed : existing));
}
