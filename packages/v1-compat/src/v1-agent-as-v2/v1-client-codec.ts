import { ErrorCodes } from '@acp-kit/sdk';
import type { CodecChannel, CodecHandshake, CodecSession } from '@acp-kit/sdk/adapter';
import type * as V1 from '../generated/v1/types.js';
import { validateResult } from '../generated/v1/validate.js';
import { messageTransport } from '../message-transport.js';
import { v1BatchRefusal } from '../no-batches.js';
import { ClientServices, type V1ClientServicesOptions } from './client-services.js';
import { V1AgentBridge } from './v1-agent-bridge.js';

/**
 * The client side of the v1 codec: a client built on the SDK, whose agent answered `initialize`
 * with version 1, keeps its v2 API. The translation is the v1-agent-as-v2 bridge
 * ({@link V1AgentBridge}: prompts answered on evidence of insertion, derived message IDs,
 * `idle` at the end of the v1 turn), run in process between the client's connection and the wire —
 * no bridge process. The agent is not initialized twice: the bridge starts from its answer.
 * With `clientServices` (offered in the client's `initialize` by {@link offerClientServices}) the
 * bridge serves the agent's `fs/*` and `terminal/*` requests on this machine.
 */
export function openV1ClientCodec(
  channel: CodecChannel,
  handshake: CodecHandshake,
  clientServices?: V1ClientServicesOptions,
): CodecSession {
  const toAgent = messageTransport((text) => channel.write(JSON.parse(text)));
  const toClient = messageTransport((text) => {
    channel.deliver(JSON.parse(text));
    return Promise.resolve();
  });
  const checked = validateResult('initialize', handshake.result);
  if (checked !== undefined && !checked.ok) {
    const issue = checked.issues[0];
    const pointer = `/result${issue?.pointer ?? ''}`;
    const expected = issue?.expected ?? issue?.message ?? 'a v1 InitializeResponse';
    channel.deliver({
      jsonrpc: '2.0',
      id: handshake.request.id,
      error: {
        code: ErrorCodes.InternalError,
        message: `Invalid result for initialize at ${pointer}: expected ${expected}`,
        data: { pointer, expected },
      },
    });
  }
  const bridge = new V1AgentBridge({
    agent: toAgent.transport,
    initialized: handshake.result as V1.InitializeResponse,
    // The client initialized the agent itself, offering these (or no) v1 file system and terminals.
    clientServices: clientServices ?? false,
  });
  bridge.serve(toClient.transport);
  if (checked === undefined || checked.ok) {
    toClient.push(JSON.stringify({ jsonrpc: '2.0', ...handshake.request, method: 'initialize' }));
  }
  return {
    // v1 has no batches: one from the agent is refused whole, as the agent side refuses one.
    fromPeer: (message) =>
      Array.isArray(message)
        ? void channel.write(v1BatchRefusal()).catch(() => undefined)
        : toAgent.push(JSON.stringify(message)),
    fromCore: (message) => {
      toClient.push(JSON.stringify(message));
      return Promise.resolve();
    },
    close: (reason) => {
      toAgent.end(reason);
      toClient.end(reason);
      bridge.close();
    },
  };
}

/**
 * A client's `initialize` params with the v1 client capabilities `services` serve added
 * (`clientCapabilities.fs` and `terminal`), for an agent that may answer with version 1.
 */
export function offerClientServices(params: unknown, services: V1ClientServicesOptions): unknown {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return params;
  const given = params as { clientCapabilities?: unknown };
  const capabilities =
    typeof given.clientCapabilities === 'object' && given.clientCapabilities !== null
      ? given.clientCapabilities
      : {};
  const offered = new ClientServices(() => undefined, services).capabilities;
  return { ...given, clientCapabilities: { ...capabilities, ...offered } };
}
