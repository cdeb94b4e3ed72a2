import * as converters from '../generated/compat/converters.js';
import { METHODS } from '../generated/v1/methods.js';

/** A generated converter, looked up by name. */
export type Convert = (value: never) => unknown;

/** How one v1 method crosses the codec: its v2 name and the converters that exist for it. */
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

/**
 * v1 methods whose v2 counterpart has another name. `session/load` is `session/resume` with replay
 * (its converter adds `replayFrom`); authentication moved under `auth/`.
 */
const RENAMED: Readonly<Record<string, string>> = {
  'session/load': 'session/resume',
  authenticate: 'auth/login',
  logout: 'auth/logout',
};

const table = converters as unknown as Record<string, Convert | undefined>;

function route(v1: string, params: string, result: string | undefined, toV2: boolean): V1Route {
  const [forth, back] = toV2 ? ['v1ToV2', 'v2ToV1'] : ['v2ToV1', 'v1ToV2'];
  return {
    v1,
    v2: RENAMED[v1] ?? v1,
    params: table[`${forth}${params}`],
    result: result === undefined ? undefined : table[`${back}${result}`],
  };
}

/**
 * The routes, built once from the generated v1 method list and the generated converters: a method
 * the v1 schema gains, or a converter the compat mapping gains, is picked up without code here.
 * Where no converter exists the value crosses unchanged (the other side's validator still checks it).
 */
function build() {
  const fromClient = new Map<string, V1Route>();
  const fromAgent = new Map<string, V1Route>();
  for (const method of METHODS) {
    if (method.direction !== 'agent_to_client') {
      fromClient.set(method.name, route(method.name, method.params, method.result, true));
    }
    if (method.direction !== 'client_to_agent') {
      const r = route(method.name, method.params, method.result, false);
      fromAgent.set(r.v2, r);
    }
  }
  return { fromClient, fromAgent };
}

const routes = build();

/** Methods the v1 client sends (requests and notifications), by their v1 name. */
export const CLIENT_ROUTES: ReadonlyMap<string, V1Route> = routes.fromClient;
/** Methods the agent sends, by their v2 name; a v2 method missing here has no v1 counterpart. */
export const AGENT_ROUTES: ReadonlyMap<string, V1Route> = routes.fromAgent;
