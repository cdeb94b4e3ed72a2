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
}

const conversions = new Map(CONVERSIONS.map((conversion) => [conversion.name, conversion]));

function converter(name: string | undefined, direction: 'toV1' | 'toV2'): Convert | undefined {
  return name === undefined ? undefined : (conversions.get(name)?.[direction] as Convert | undefined);
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
      fromClient.set(entry.v1, {
        v1: entry.v1,
        v2: entry.v2,
        params: converter(entry.params, 'toV2'),
        result: converter(entry.result, 'toV1'),
      });
      toV1Agent.set(entry.v2, {
        v1: entry.v1,
        v2: entry.v2,
        params: converter(entry.params, 'toV1'),
        result: converter(entry.result, 'toV2'),
      });
    }
    if (sender !== 'client_to_agent') {
      fromAgent.set(entry.v2, {
        v1: entry.v1,
        v2: entry.v2,
        params: converter(entry.params, 'toV1'),
        result: converter(entry.result, 'toV2'),
      });
    }
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
