/**
 * `@acp-kit/sdk/adapter`: the SDK internals that adapters and stores build on, for the authors of
 * a protocol bridge (`@acp-kit/v1-compat`), a history store or a session-ownership store
 * (`@acp-kit/history-sqlite`, `@acp-kit/history-postgres`), and for acp-kit's own servers and
 * relays (`@acp-kit/cli`: the handshake guard, the ndjson stream reader and writer). Not for application code: an agent or
 * client needs only `@acp-kit/sdk`. These names follow the SDK's internals and change more often;
 * each change still shows in `api/adapter.api.md` and takes a changeset.
 *
 * @packageDocumentation
 */
// Agent internals an adapter that keeps sessions of its own reuses (the v1 agent bridge)
export { AdapterSession, type AdapterSessionOptions, type ReceivedPrompt } from './agent/adapter-session.js';
export { isAdvertised } from './agent/connection/capability-paths.js';
export { connectionPeer, type ConnectionPeerOptions } from './agent/connection/connection-peer.js';
export { ConnectionState as AgentConnectionState } from './agent/connection/connection-state.js';
export { type Admission, MethodGate, WAY_IN_AND_OUT } from './agent/connection/method-gate.js';
export {
  type Advertisement,
  type AgentMethodHandlers,
  type GateOf,
  type MethodRefusalData,
  MethodTable,
} from './agent/connection/method-table.js';
export { replayCursorOf } from './agent/replay/replay-cursor.js';
export { applyConfigOption } from './agent/sessions/config-options.js';
export { DEFAULT_LIST_PAGE_SIZE, listSessionPage, sessionInfo } from './agent/sessions/session-directory.js';
export { checkSystemPrompt } from './agent/sessions/system-prompt.js';
// The subagent guard, for adapters that keep sessions of their own (the v1 agent bridge)
export {
  CHILD_MUTATIONS,
  CHILD_UNGUARDED,
  cancellableAfter,
  childRefusal,
  guardSubagents,
  type SubagentMember,
} from './agent/sessions/subagents.js';
// Session ownership across replicas: the contract a shared store implements (history-postgres)
export type {
  ForwardedAnswer,
  ForwardedError,
  ForwardedPrompt,
  ForwardedReceipt,
  ForwardedRequest,
  OwnershipHost,
  PromptRoute,
  SessionOwnership,
} from './agent/sessions/session-ownership.js';
// Transport plumbing for adapters that write their own readers and writers
export type { Disposable, MessageReaderListener, RpcErrorObject, WriteNote } from './rpc/index.js';
export { StreamMessageReader, StreamMessageWriter } from './transports/stream.js';
// The security checks of acp-kit's listeners, for a server of its own (the CLI's inspector)
export {
  type GuardRefusal,
  HandshakeGuard,
  type HandshakeGuardOptions,
} from './transports/handshake-guard.js';
// Wire codecs: how a connection speaks another protocol version (the v1 wire codec)
export {
  type CodecChannel,
  type CodecHandshake,
  type CodecSession,
  CORE_PROTOCOL_VERSION,
  unsupportedProtocolVersion,
  type UnsupportedProtocolVersionData,
  type WireCodec,
} from './codec/index.js';
export {
  CHUNK_OF,
  chunkUpdate,
  isMessageKind,
  messageChange,
  type MessageChange,
  messageUpdate,
} from './history/index.js';
// MCP over ACP bindings an adapter translates
export {
  checkAcpServers,
  checkMcpServers,
  isMcpErrorOutcome,
  isMcpServerAcp,
  MCP_MESSAGE_METHOD,
  MCP_META,
  MCP_OVER_ACP_PROTOCOL_VERSION,
  McpBindingErrors,
  type McpClientIdentity,
  type McpNotificationSender,
  type McpOutcome,
  type McpServerHostOptions,
  type McpTransports,
  mcpTransportsOf,
  parseMcpOutcome,
  withMcpRequestMeta,
} from './mcp-over-acp/index.js';
// Transcript formatting for tools that print or tap a connection's traffic (the conformance kit)
export {
  formatTranscriptLine,
  type TappableConnection,
  type TranscriptSide,
  wireDirection,
} from './transcript/index.js';
// Building a history store: the session log contract, cursors, IDs and shared argument checks
export {
  decodeListCursor,
  encodeListCursor,
  findUnstorableText,
  type HistoryStoreErrorDetails,
  historyValidation,
  isStorableText,
  issueMessageId,
  type ListSessionRecordsOptions,
  type LogEntry,
  LogFollowers,
  LogHistoryStore,
  type LogListener,
  type LogPage,
  type LogSubscription,
  type MessageRef,
  type MessageTarget,
  type NewLogEntry,
  type NewRetainedMessage,
  type NewSessionRecord,
  randomId,
  randomMessageId,
  type ReadLogOptions,
  replayUpdates,
  retainedMessages,
  type SeqRange,
  type SessionConfig,
  type SessionPatch,
  type SessionRecord,
  type SessionRecordPage,
  STORABLE_TEXT,
  type WriteBehindLimits,
} from './history/index.js';
