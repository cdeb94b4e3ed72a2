import type { BridgeCore } from '../bridge-core.js';
import type { ClientLink } from '../client-link.js';
import type { AgentMethodHandlers } from '@acp-kit/sdk/adapter';

type Handlers = AgentMethodHandlers<ClientLink>;

/** A handler that only relays the request to the v1 agent (see {@link BridgeCore.relay}). */
export function relay<K extends keyof Handlers>(
  bridge: BridgeCore,
  method: K & string,
): NonNullable<Handlers[K]> {
  return ((params: unknown) => bridge.relay(method, params)) as NonNullable<Handlers[K]>;
}

/** A handler that only relays the notification to the v1 agent (see {@link BridgeCore.relayNotification}). */
export function notify<K extends keyof Handlers>(
  bridge: BridgeCore,
  method: K & string,
): NonNullable<Handlers[K]> {
  return ((params: unknown) => bridge.relayNotification(method, params)) as unknown as NonNullable<
    Handlers[K]
  >;
}
