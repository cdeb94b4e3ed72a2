/**
 * The hostile-peer section of the CLI's stress suite (issue 40): each flood and stall of
 * `test/hostile/peers.ts` against a real `acp-kit agent --listen` or `acp-kit serve`, at `scale`
 * of the sizes the issue found them at, with the server's RSS growth and a well-behaved client's
 * turn on the same server checked for each.
 */
import {
  abandonedInitialize,
  type Endpoint,
  floodStalledWebSocket,
  halfOpenFlood,
  killAll,
  MiB,
  madeUpSessions,
  postsIntoDeafAgent,
  startAgent,
  startGateway,
  webSocketIntoDeafAgent,
  wrongTokens,
} from '../test/hostile/peers.js';
import type { Figures } from './figures.js';

const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`;

/** Runs `scenario` on a fresh server from `start` and stops it afterwards. */
async function on<T>(
  start: () => Promise<Endpoint>,
  scenario: (endpoint: Endpoint) => Promise<T>,
): Promise<T> {
  const endpoint = await start();
  try {
    return await scenario(endpoint);
  } finally {
    endpoint.stop();
    killAll();
  }
}

/** Every hostile peer of issue 40 at `scale` (1: the sizes). */
export async function hostileStress(f: Figures, scale: number): Promise<void> {
  const sockets = Math.max(100, Math.round(600 * scale));
  const halfOpen = await on(startAgent, (agent) => halfOpenFlood(agent, sockets));
  f.figure(
    `agent --listen: ${sockets} half-open sockets from one address — held by the server; established and new client served`,
    `${halfOpen.heldByServer}; ${halfOpen.establishedServed}, ${halfOpen.newClientServed}`,
    halfOpen.heldByServer <= 16 && halfOpen.establishedServed && halfOpen.newClientServed,
  );

  const notes = Math.max(1000, Math.round(30_000 * scale));
  const madeUp = await on(startAgent, (agent) => madeUpSessions(agent, notes));
  f.figure(
    `agent --listen: ${notes} notifications naming made-up 1 KiB sessions — answers; RSS growth; good client served`,
    `${JSON.stringify(madeUp.statuses)}; ${mib(madeUp.rssGrowth)}; ${madeUp.goodClientServed}`,
    madeUp.statuses[404] === notes && madeUp.rssGrowth < 64 * MiB && madeUp.goodClientServed,
  );

  const guesses = await on(startAgent, (agent) => wrongTokens(agent, 60));
  f.figure(
    'agent --listen: 60 wrong tokens from one address — answers; right token then; other address served',
    `${JSON.stringify(guesses.statuses)} (at most ${guesses.most401} 401s in the time taken; Retry-After ${guesses.retryAfter}); ${guesses.rightTokenSameAddress}; ${guesses.otherAddressServed}`,
    (guesses.statuses[401] ?? 0) >= 20 &&
      (guesses.statuses[401] ?? 0) <= guesses.most401 &&
      (guesses.statuses[401] ?? 0) + (guesses.statuses[429] ?? 0) === 60 &&
      guesses.rightTokenSameAddress === 429 &&
      guesses.otherAddressServed,
  );

  const flood = await on(startGateway, (gateway) =>
    floodStalledWebSocket(gateway, Math.max(5000, 15_000 * scale)),
  );
  f.figure(
    'serve: agent flooding a WebSocket client that stopped reading — gateway RSS peak growth; close; good client served',
    `${mib(flood.peakGrowth)}; ${flood.closeCode} ${flood.closeReason}; ${flood.goodClientServed}`,
    flood.peakGrowth < 64 * MiB && flood.closeCode === 1008 && flood.goodClientServed,
  );

  const volume = Math.max(16, Math.round(160 * scale));
  const deafWs = await on(startGateway, (gateway) => webSocketIntoDeafAgent(gateway, volume));
  f.figure(
    `serve: ${volume} MiB over WebSocket to an agent not reading stdin — gateway RSS peak growth; good client served`,
    `${mib(deafWs.peakGrowth)}; ${deafWs.goodClientServed}`,
    deafWs.peakGrowth < 32 * MiB && deafWs.goodClientServed,
  );

  const deafPosts = await on(startGateway, (gateway) => postsIntoDeafAgent(gateway, volume));
  f.figure(
    `serve: ${volume} MiB as POSTs to an agent not reading stdin — answers; gateway RSS peak growth; good client served`,
    `${JSON.stringify(deafPosts.statuses)} (Retry-After ${deafPosts.retryAfter}); ${mib(deafPosts.peakGrowth)}; ${deafPosts.goodClientServed}`,
    (deafPosts.statuses[503] ?? 0) >= volume - 4 &&
      deafPosts.peakGrowth < 48 * MiB &&
      deafPosts.goodClientServed,
  );

  const abandoned = await on(startGateway, (gateway) => abandonedInitialize(gateway, 10_000));
  f.figure(
    'serve: initialize abandoned before its answer — agent ended within 10 s',
    `${abandoned.agentEnded} (pid ${abandoned.agentPid})`,
    abandoned.agentEnded,
  );
}
