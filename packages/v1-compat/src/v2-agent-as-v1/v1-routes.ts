import type { BridgeLossListener } from '../bridge-loss.js';
import { CONVERSIONS, METHOD_MAPPING } from '../generated/compat/converters.js';
import { METHODS } from '../generated/v1/methods.js';

/** A generated converter. */
export type Convert = (value: never) => unknown;

/** How one v1 method crosses the codec: its v2 name and the converters of its params and result. */
export interface V1Route {
  /** The v1 method name. */
  readonly v1: string;
  /** The v2 method it is served as. */
  readonly v2: string;
  /** Params in the direction they travel (v1→v2 for the client's methods, v2→v1 for the agent's). */
  readonly params: Convert | undefined;
  /** The result, back the other way. */
  readonly result: Convert | undefined;
  /** Top-level params fields the params conversion leaves out, when it leaves any out. */
  readonly paramsDropped: Dropped | undefined;
  /** Top-level result fields the result conversion leaves out, when it leaves any out. */
  readonly resultDropped: Dropped | undefined;
}

/** Fields a conversion deliberately does not carry over (the mapping's `drop`), and why. */
export interface Dropped {
  readonly fields: readonly string[];
  /** The mapping's `lossy` text for that direction. */
  readonly reason: string;
}

const conversions = new Map(CONVERSIONS.map((conversion) => [conversion.name, conversion]));

type Direction = 'toV1' | 'toV2';

function converter(name: string | undefined, direction: Direction): Convert | undefined {
  return name === undefined ? undefined : (conversions.get(name)?.[direction] as Convert | undefined);
}

function dropped(name: string | undefined, direction: Direction): Dropped | undefined {
  const conversion = name === undefined ? undefined : conversions.get(name);
  const fields = direction === 'toV1' ? conversion?.dropToV1 : conversion?.dropToV2;
  if (conversion === undefined || fields === undefined) return undefined;
  const reason = (direction === 'toV1' ? conversion.lossyToV1 : conversion.lossyToV2) ?? 'no counterpart';
  return { fields, reason };
}

/** The route of a method pair whose params travel `paramsWay` and whose result comes back `resultWay`. */
function route(
  v1: string,
  v2: string,
  conversion: { readonly params?: string | undefined; readonly result?: string | undefined },
  paramsWay: Direction,
  resultWay: Direction,
): V1Route {
  return {
    v1,
    v2,
    params: converter(conversion.params, paramsWay),
    result: converter(conversion.result, resultWay),
    paramsDropped: dropped(conversion.params, paramsWay),
    resultDropped: dropped(conversion.result, resultWay),
  };
}

/**
 * Reports to `onLoss` each field `drops` leaves out of `value` (a request's params or a response's
 * result, at `at`: `/params` or `/result`) that is present and not null, one loss per field at its
 * pointer, with the mapping's reason. `sessionId` is the session the call names ('' for none).
 */
export function reportDropped(
  onLoss: BridgeLossListener | undefined,
  drops: Dropped | undefined,
  value: unknown,
  at: '/params' | '/result',
  call: { readonly method: string; readonly sessionId: unknown },
): void {
  if (onLoss === undefined || drops === undefined || typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  const sessionId = typeof call.sessionId === 'string' ? call.sessionId : '';
  for (const field of drops.fields) {
    if (record[field] === undefined || record[field] === null) continue;
    onLoss({ sessionId, in: call.method, pointer: `${at}/${field}`, reason: drops.reason });
  }
}

/**
 * The routes, read from the generated compat tables (`METHOD_MAPPING`: each method's counterpart
 * and the conversions of its params and result; `CONVERSIONS`: the converters) and the generated v1
 * method list for who sends what. A method or conversion the mapping gains is picked up without
 * code here. Where no conversion is declared the value crosses unchanged (the other side's
 * validator still checks it); a v1 method without a v2 counterpart is not routed.
 */
function build() {
  const direction = new Map(METHODS.map((method) => [method.name as string, method.direction]));
  const fromClient = new Map<string, V1Route>();
  const fromAgent = new Map<string, V1Route>();
  const toV1Agent = new Map<string, V1Route>();
  const uncarried = new Map<string, string>();
  for (const entry of METHOD_MAPPING) {
    if (entry.v1 !== null && entry.v2 === null && direction.get(entry.v1) !== 'agent_to_client')
      uncarried.set(entry.v1, entry.lossy ?? `${entry.v1} has no v2 counterpart`);
    if (entry.v1 === null || entry.v2 === null) continue;
    const sender = direction.get(entry.v1);
    if (sender !== 'agent_to_client') {
      fromClient.set(entry.v1, route(entry.v1, entry.v2, entry, 'toV2', 'toV1'));
      toV1Agent.set(entry.v2, route(entry.v1, entry.v2, entry, 'toV1', 'toV2'));
    }
    if (sender !== 'client_to_agent')
      fromAgent.set(entry.v2, route(entry.v1, entry.v2, entry, 'toV1', 'toV2'));
  }
  return { fromClient, fromAgent, toV1Agent, uncarried };
}

const routes = build();

/** Methods the v1 client sends (requests and notifications), by their v1 name. */
export const CLIENT_ROUTES: ReadonlyMap<string, V1Route> = routes.fromClient;
/** Methods the agent sends, by their v2 name; a v2 method missing here has no v1 counterpart. */
export const AGENT_ROUTES: ReadonlyMap<string, V1Route> = routes.fromAgent;
/**
 * The client's methods the other way round, by their v2 name: how the v1 agent bridge sends a v2
 * client's request to a v1 agent (params v2 → v1, the result back v1 → v2).
 */
export const TO_V1_AGENT_ROUTES: ReadonlyMap<string, V1Route> = routes.toV1Agent;
/**
 * v1 methods a v1 client may send that have no v2 counterpart (`proxy/initialize`,
 * `proxy/successor`: the bridge does not carry proxy chains across versions), each with the
 * mapping's reason. The codec answers them -32601 and reports the call as lost.
 */
export const UNCARRIED_CLIENT_METHODS: ReadonlyMap<string, string> = routes.uncarried;

/** The v1 schema's method names (a method outside it that is not an extension is not v1). */
export const V1_METHOD_NAMES: ReadonlySet<string> = new Set(METHODS.map((method) => method.name as string));
