/**
 * v1 session modes as a v2 configuration option, and the configuration option conversions that
 * are not field by field (schema/compat/v1-v2.json marks them `custom`). v1 has modes
 * (`modes`, `session/set_mode`, `current_mode_update`) next to configuration options; v2 has only
 * configuration options, where modes are the select option of category `mode`.
 */
import type * as V2 from '@acp-kit/schema';
import { CompatError } from './compat-error.js';
import {
  v1ToV2SessionConfigOption,
  v1ToV2SessionConfigSelectGroup,
  v1ToV2SessionConfigSelectOption,
  v2ToV1SessionConfigOption,
  v2ToV1SessionConfigSelectGroup,
  v2ToV1SessionConfigSelectOption,
} from './generated/compat/converters.js';
import type * as V1 from './generated/v1/types.js';

/** The configId of the v2 option that stands for a v1 agent's modes. */
export const V1_MODE_CONFIG_ID = 'mode';

/** The v2 select option of category `mode`, if the list has one. */
export function v2ModeOption(
  options: readonly V2.SessionConfigOption[] | null | undefined,
): V2.SessionConfigSelect | undefined {
  return options?.find(
    (o): o is V2.SessionConfigSelect =>
      o.type === 'select' && (o as V2.SessionConfigSelect).category === 'mode',
  );
}

/** v1 modes become a select option of category mode (configId {@link V1_MODE_CONFIG_ID}). */
export function v1ToV2SessionModeState(value: V1.SessionModeState): V2.SessionConfigSelect {
  return {
    type: 'select',
    configId: V1_MODE_CONFIG_ID,
    name: 'Mode',
    category: 'mode',
    currentValue: value.currentModeId,
    options: value.availableModes.map((m) => ({
      value: m.id,
      name: m.name,
      ...(m.description === undefined ? {} : { description: m.description }),
      ...(m._meta === undefined ? {} : { _meta: m._meta }),
    })),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A select option (groups flattened) becomes v1 modes. */
export function v2ToV1SessionModeState(value: V2.SessionConfigSelect): V1.SessionModeState {
  const flat = (
    value.options as readonly (V2.SessionConfigSelectOption | V2.SessionConfigSelectGroup)[]
  ).flatMap((o) =>
    'groupId' in o ? (o as V2.SessionConfigSelectGroup).options : [o as V2.SessionConfigSelectOption],
  );
  return {
    currentModeId: value.currentValue,
    availableModes: flat.map((o) => ({
      id: o.value,
      name: o.name,
      ...(o.description === undefined ? {} : { description: o.description }),
      ...(o._meta === undefined ? {} : { _meta: o._meta }),
    })),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A list of values or of groups: v1 names a group `group`, v2 `groupId`. */
export function v1ToV2SessionConfigSelectOptions(
  value: V1.SessionConfigSelectOptions,
): V2.SessionConfigSelectOptions {
  const items = value as readonly (V1.SessionConfigSelectOption | V1.SessionConfigSelectGroup)[];
  return items.map((o) =>
    'group' in o ? v1ToV2SessionConfigSelectGroup(o) : v1ToV2SessionConfigSelectOption(o),
  ) as V2.SessionConfigSelectOptions;
}

/** A list of values or of groups: v2 names a group `groupId`, v1 `group`. */
export function v2ToV1SessionConfigSelectOptions(
  value: V2.SessionConfigSelectOptions,
): V1.SessionConfigSelectOptions {
  const items = value as readonly (V2.SessionConfigSelectOption | V2.SessionConfigSelectGroup)[];
  return items.map((o) =>
    'groupId' in o ? v2ToV1SessionConfigSelectGroup(o) : v2ToV1SessionConfigSelectOption(o),
  ) as V1.SessionConfigSelectOptions;
}

/** An option of a type v1 does not know keeps its fields; only id becomes configId. */
export function v1ToV2ExtensionSessionConfigOption(
  value: V1.ExtensionSessionConfigOption,
): V2.ExtensionSessionConfigOption {
  const { id, ...rest } = value;
  return { ...rest, configId: id } as V2.ExtensionSessionConfigOption;
}

/** An option of a type v2 does not know keeps its fields; only configId becomes id. */
export function v2ToV1ExtensionSessionConfigOption(
  value: V2.ExtensionSessionConfigOption,
): V1.ExtensionSessionConfigOption {
  const { configId, ...rest } = value;
  return { ...rest, id: configId } as V1.ExtensionSessionConfigOption;
}

/** v1 sends a select value without a type and a boolean with type "boolean"; v2 tags both. */
export function v1ToV2SetSessionConfigOptionRequest(
  value: V1.SetSessionConfigOptionRequest,
): V2.SetSessionConfigOptionRequest {
  const { type, value: chosen, ...rest } = value;
  if (type === undefined && typeof chosen === 'string') return { ...rest, type: 'id', value: chosen };
  if (type === 'boolean' && typeof chosen === 'boolean') return { ...rest, type: 'boolean', value: chosen };
  // A type from a later version (or a value that does not match its type) travels as it is.
  return { ...rest, type: type ?? 'id', value: chosen } as V2.SetSessionConfigOptionRequest;
}

/** v2's id type becomes v1's untyped select value; boolean and later types keep their type. */
export function v2ToV1SetSessionConfigOptionRequest(
  value: V2.SetSessionConfigOptionRequest,
): V1.SetSessionConfigOptionRequest {
  const { type, value: chosen, ...rest } = value as V2.SetSessionConfigOptionValueRequest;
  if (type === 'id') return { ...rest, value: chosen };
  return { ...rest, type: value.type, value: chosen } as V1.SetSessionConfigOptionRequest;
}

/** v1 session/set_mode is v2 session/set_config_option of the mode option. */
export function v1ToV2SetSessionMode(value: V1.SetSessionModeRequest): V2.SetSessionConfigOptionRequest {
  return {
    type: 'id',
    sessionId: value.sessionId,
    configId: V1_MODE_CONFIG_ID,
    value: value.modeId,
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** Only setting the mode option to a value id is a v1 session/set_mode. */
export function v2ToV1SetSessionMode(value: V2.SetSessionConfigOptionRequest): V1.SetSessionModeRequest {
  if (value.configId !== V1_MODE_CONFIG_ID)
    throw new CompatError(`config option ${JSON.stringify(value.configId)} is not the v1 mode`, '/configId');
  if (value.type !== 'id') throw new CompatError('a v1 mode is set with a value id', '/type');
  const request = value as V2.SetSessionConfigOptionValueRequest;
  return {
    sessionId: request.sessionId,
    modeId: request.value,
    ...(request._meta === undefined ? {} : { _meta: request._meta }),
  };
}

/** v1 answers set_mode with nothing; the v2 answer lists the options the caller passes. */
export function v1ToV2SetSessionModeResponse(
  value: V1.SetSessionModeResponse,
  configOptions: readonly V2.SessionConfigOption[],
): V2.SetSessionConfigOptionResponse {
  return {
    configOptions: [...configOptions],
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** The v2 answer's options have no place in v1's empty set_mode answer. */
export function v2ToV1SetSessionModeResponse(
  value: V2.SetSessionConfigOptionResponse,
): V1.SetSessionModeResponse {
  return value._meta === undefined ? {} : { _meta: value._meta };
}

/** A v1 mode switch is the whole v2 option set with the mode option's new current value. */
export function v1ToV2CurrentModeUpdate(
  value: V1.CurrentModeUpdate,
  configOptions: readonly V2.SessionConfigOption[],
): V2.ConfigOptionUpdate {
  const mode = v2ModeOption(configOptions);
  return {
    sessionUpdate: 'config_option_update',
    configOptions: configOptions.map((o) =>
      o === mode ? { ...mode, currentValue: value.currentModeId } : o,
    ),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** The current value of the v2 mode option, as a v1 mode switch. */
export function v2ToV1CurrentModeUpdate(value: V2.ConfigOptionUpdate): V1.CurrentModeUpdate {
  const mode = v2ModeOption(value.configOptions);
  if (mode === undefined)
    throw new CompatError('the update has no select option of category mode', '/configOptions');
  return {
    sessionUpdate: 'current_mode_update',
    currentModeId: mode.currentValue,
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** v1 config options plus, when no option already stands for them, the v1 modes as an option. */
function optionsToV2(
  modes: V1.SessionModeState | null | undefined,
  options: readonly V1.SessionConfigOption[] | null | undefined,
): V2.SessionConfigOption[] | undefined {
  const converted = (options ?? []).map((o) => v1ToV2SessionConfigOption(o));
  const covered = converted.some(
    (o) => o.configId === V1_MODE_CONFIG_ID || (o as V2.SessionConfigSelect).category === 'mode',
  );
  if (modes !== undefined && modes !== null && !covered) converted.push(v1ToV2SessionModeState(modes));
  return converted.length === 0 && (options === undefined || options === null) ? undefined : converted;
}

/** v2 options carry over; the mode option also becomes v1 modes. */
function optionsToV1(options: readonly V2.SessionConfigOption[] | undefined): {
  modes?: V1.SessionModeState;
  configOptions?: V1.SessionConfigOption[];
} {
  if (options === undefined) return {};
  const mode = v2ModeOption(options);
  return {
    ...(mode === undefined ? {} : { modes: v2ToV1SessionModeState(mode) }),
    configOptions: options.map((o) => v2ToV1SessionConfigOption(o)),
  };
}

/** The response's modes and options become v2 options (see {@link v1ToV2SessionModeState}). */
export function v1ToV2NewSessionResponse(value: V1.NewSessionResponse): V2.NewSessionResponse {
  const configOptions = optionsToV2(value.modes, value.configOptions);
  return {
    sessionId: value.sessionId,
    ...(configOptions === undefined ? {} : { configOptions }),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** v2 options become v1 options and modes; availableCommands has no v1 field here. */
export function v2ToV1NewSessionResponse(value: V2.NewSessionResponse): V1.NewSessionResponse {
  return {
    sessionId: value.sessionId,
    ...optionsToV1(value.configOptions),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A fork's answer (unstable in both versions) is a new session's: modes become an option and back. */
export function v1ToV2ForkSessionResponse(value: V1.ForkSessionResponse): V2.ForkSessionResponse {
  return v1ToV2NewSessionResponse(value);
}

/** v2 options become v1 options and modes; availableCommands has no v1 field here. */
export function v2ToV1ForkSessionResponse(value: V2.ForkSessionResponse): V1.ForkSessionResponse {
  return v2ToV1NewSessionResponse(value);
}

/** The fields session/load and session/resume answers share in v1. */
type V1ReopenResponse = V1.LoadSessionResponse | V1.ResumeSessionResponse;

function reopenToV2(value: V1ReopenResponse): V2.ResumeSessionResponse {
  const configOptions = optionsToV2(value.modes, value.configOptions);
  return {
    ...(configOptions === undefined ? {} : { configOptions }),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

function reopenToV1(value: V2.ResumeSessionResponse): V1ReopenResponse {
  return {
    ...optionsToV1(value.configOptions),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** As {@link v1ToV2NewSessionResponse}, for the answer of session/load. */
export function v1ToV2LoadSessionResponse(value: V1.LoadSessionResponse): V2.ResumeSessionResponse {
  return reopenToV2(value);
}

/** As {@link v2ToV1NewSessionResponse}, for the answer of session/load. */
export function v2ToV1LoadSessionResponse(value: V2.ResumeSessionResponse): V1.LoadSessionResponse {
  return reopenToV1(value);
}

/** As {@link v1ToV2NewSessionResponse}, for the answer of session/resume. */
export function v1ToV2ResumeSessionResponse(value: V1.ResumeSessionResponse): V2.ResumeSessionResponse {
  return reopenToV2(value);
}

/** As {@link v2ToV1NewSessionResponse}, for the answer of session/resume. */
export function v2ToV1ResumeSessionResponse(value: V2.ResumeSessionResponse): V1.ResumeSessionResponse {
  return reopenToV1(value);
}

/**
 * An error's `data` for a v1 `session/set_mode` served as v2 `session/set_config_option`: a
 * pointer at the option's `value` or `configId` becomes the v1 request's `/params/modeId` (the
 * field v1 names); any other data is returned as it is.
 */
export function setModeErrorDataToV1(data: unknown): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const { pointer } = data as { pointer?: unknown };
  if (pointer !== '/params/value' && pointer !== '/params/configId') return data;
  return { ...data, pointer: '/params/modeId' };
}
