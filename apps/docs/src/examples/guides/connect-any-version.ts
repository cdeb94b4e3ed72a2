import { Client, Connection, negotiateClientVersion, type Transport } from '@acp-kit/sdk';
import { v1WireCodec } from '@acp-kit/v1-compat';

/**
 * A v2 client that also works with agents that only speak v1: it asks for v2, and if the agent
 * answers initialize with protocolVersion 1, the v1 codec translates the connection both ways.
 */
export function clientForAnyAgent(transport: Transport, onVersion?: (version: number) => void): Client {
  const negotiated = negotiateClientVersion(transport, {
    codecs: [v1WireCodec],
    ...(onVersion ? { onNegotiated: onVersion } : {}),
  });
  return new Client(new Connection(negotiated), { info: { name: 'any-version-client', version: '1.0.0' } });
}
