/**
 * The connection limits of the benchmark's listening agents: every connection comes from
 * 127.0.0.1, so the per-address caps and the handshake rate that protect a real endpoint are
 * raised far past what the many-connections run opens (1 000 connections, each with two SSE
 * streams; the capacity benchmark's 5 000 sessions with a second client on one in ten, each on a
 * connection of its own). Nothing else about the endpoint is changed.
 */
import type { ConnectionLimits } from '@acp-kit/sdk';

export const BENCH_LIMITS: ConnectionLimits = {
  maxConnections: 8192,
  maxConnectionsPerAddress: 8192,
  handshakeBurst: 1_000_000,
  handshakesPerSecond: 1_000_000,
  // Sockets not yet past the token check: the capacity benchmark's 1 100 connections each open a
  // fresh keep-alive socket for their first prompt at once (the ones of their handshake timed out).
  maxPendingHandshakes: 16_384,
  maxPendingPerAddress: 16_384,
};
