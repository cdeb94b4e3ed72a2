/**
 * ACP proxy chains (upstream's unstable surface, the proxy-chains draft; may change): a proxy
 * that sits between a client and an agent and can observe and change what crosses it, and a
 * conductor that runs client ⇄ proxies ⇄ agent. Opt-in: nothing here is reachable from the main
 * entry.
 * @packageDocumentation
 */
export {
  PROXY_INITIALIZE_METHOD,
  PROXY_SUCCESSOR_METHOD,
  type ProxyDialect,
  type SuccessorEnvelope,
} from './dialect.js';
export { envelopeValidator } from './envelope-validator.js';
export { runProxy } from './run-proxy.js';
export {
  type ChainComponent,
  type ChainRefusal,
  type ConductorEnd,
  type ConductorOptions,
  serveConductor,
  type ServedConductor,
} from './serve-conductor.js';
export {
  type InterceptContext,
  type Interceptor,
  type ProxyDirection,
  type ProxyEvent,
  type ProxyOptions,
  type ServedProxy,
  serveProxy,
  type ToAgentInterceptors,
  type ToClientInterceptors,
} from './serve-proxy.js';
