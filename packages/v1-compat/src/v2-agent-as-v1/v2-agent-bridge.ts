import {
  Connection,
  ErrorCodes,
  negotiateAgentVersion,
  RpcError,
  schemaValidator,
  type Transport,
} from '@acp-kit/sdk';
import type { BridgeLossListener } from '../bridge-loss.js';
import type {
  AgentNotificationMap,
  AgentRequestMap,
  ClientNotificationMap,
  ClientRequestMap,
} from '../generated/v1/methods.js';
import { WrappedPeer } from '../wrapped-peer.js';
import { V1AgentCodec } from './v1-wire-codec.js';

/** A connection to a v1 client, as a v1 agent holds it (the v1 method maps). */
export type V1AgentConnection = Connection<
  AgentRequestMap,
  AgentNotificationMap,
  ClientRequestMap,
  ClientNotificationMap
>;

/** Options of {@link serveV2AgentAsV1}. */
export interface ServeV2AgentAsV1Options {
  /** Transport to the v2 agent, e.g. `spawnTransport(command, args)`. */
  agent: Transport;
  /** Transport from the v1 client (e.g. `stdioTransport()`). */
  client: Transport;
  /** How errors name the agent. Default `v2 agent`. */
  name?: string;
  /**
   * Told each part of a v2 update that has no v1 form and was left out (a command whose input
   * type v1 does not know, say). `runBridge` logs them.
   */
  onLoss?: BridgeLossListener;
}

/** A running v2-agent-as-v1 bridge. */
export interface V2AgentBridge {
  /**
   * The client side: the connection behind the v1 codec, where the client's messages arrive as v2
   * (it closes when the v1 client goes away).
   */
  readonly connection: Connection;
  /** Resolves with the reason once the v2 agent is gone. */
  readonly closed: Promise<string>;
  /** Closes both connections. */
  close(): void;
}

/**
 * Serves a v2 agent process to a v1 client: the v1 wire codec (`v1WireCodec`, the translation an
 * `Agent` negotiates in process) in front of a relay to the agent, so both paths translate alike.
 * A v1 `session/prompt` stays open until the v2 agent reports `idle` after inserting it, then
 * answers `{stopReason}`; v2 message updates become v1 chunks (see `ChunkWriter` for
 * replacements); `state_update` is not forwarded; v1 `session/load` is v2 `session/resume` with
 * replay from the start. The agent has only the wire, so its updates are placed in each session's
 * stream by arrival. A client whose `initialize` asks for version 2 is relayed unchanged.
 *
 * The agent's messages are checked against the v2 schema; one that is not JSON-RPC ends the
 * bridge ({@link V2AgentBridge.closed}), and every request still waiting on the agent, prompts
 * included, is answered -32603 naming why.
 */
export function serveV2AgentAsV1(options: ServeV2AgentAsV1Options): V2AgentBridge {
  // Untyped: the relay forwards whatever method either side sends (the codec translated it).
  const v2 = new Connection(options.agent, { validator: schemaValidator });
  const peer = new WrappedPeer(options.name ?? 'v2 agent', v2);
  const codecs: V1AgentCodec[] = [];
  const client = new Connection(
    negotiateAgentVersion(options.client, {
      codecs: [
        {
          protocolVersion: 1,
          agent: (channel) => {
            const codec = new V1AgentCodec(channel, options.onLoss, 'arrival');
            codecs.push(codec);
            return codec;
          },
        },
      ],
    }),
  );

  // The client's requests and notifications (v2, from the codec) go to the agent as they are.
  client.onUnhandledRequest(async (method, params, context) => {
    try {
      return await v2.sendRequest(method, params, { signal: context.signal });
    } catch (error) {
      throw peer.toBridgeError(error);
    }
  });
  client.onUnhandledNotification((method, params) => {
    v2.sendNotification(method, params).catch(() => undefined);
  });
  // The agent's go to the client through the codec (a request v1 cannot answer is refused there).
  v2.onUnhandledRequest((method, params, context) =>
    client.sendRequest(method, params, { signal: context.signal }),
  );
  v2.onUnhandledNotification((method, params) => {
    client.sendNotification(method, params).catch(() => undefined);
  });

  peer.closed.then((reason) => {
    const error = new RpcError(ErrorCodes.InternalError, `${peer.name} unavailable: ${reason}`);
    for (const codec of codecs) codec.fail(error);
  });
  v2.listen();
  client.listen();
  return {
    connection: client,
    closed: peer.closed,
    close: () => {
      client.close();
      peer.close();
    },
  };
}
