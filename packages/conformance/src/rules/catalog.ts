import type { RuleInfo } from './types.js';

const RFD = 'v2 prompt-lifecycle RFD';

/**
 * Every rule the kit checks, in report order. IDs are stable: a rule that changes meaning gets a new
 * ID. `source` names the RFD section (or schema definition) the rule comes from.
 */
export const RULES = [
  {
    id: 'prompt.response.message-id',
    statement: 'A successful session/prompt response carries messageId as a non-empty string.',
    source: `${RFD} §Change the session/prompt response`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.user-message.reported',
    statement:
      "Each accepted prompt's user message is reported in its session (user_message or user_message_chunk).",
    source: `${RFD} §User message reported to clients`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.user-message.same-id',
    statement:
      'The user message reported for an accepted prompt, and every update of it, uses exactly the returned messageId.',
    source: `${RFD} §Correlate prompts with accepted user messages`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.message-id.distinct',
    statement:
      'Every accepted submission gets its own messageId (identical prompts included); no ID is reused for another submission.',
    source: `${RFD} §Correlate prompts with accepted user messages`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.response.before-idle',
    statement:
      'The prompt response is not held until processing ends: it arrives before the idle that ends the work it started.',
    source: `${RFD} §Change the session/prompt response`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.rejected.error',
    statement:
      'A prompt for an unknown session, with an empty prompt or with malformed content gets a JSON-RPC error.',
    source: `${RFD} §Change the session/prompt response; schema PromptRequest`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.rejected.no-user-message',
    statement: 'No user message is reported for a rejected prompt (acceptance means insertion).',
    source: `${RFD} §Change the session/prompt response`,
    tier: 'mandatory',
  },
  {
    id: 'prompt.rejected.error-code',
    statement:
      'A rejected prompt uses the conventional code: -32602 for invalid params, -32002 for an unknown session.',
    source: 'protocol notes §JSON-RPC error codes in use',
    tier: 'advisory',
  },
  {
    id: 'state.running-before-idle',
    statement:
      'running precedes the idle that carries a stopReason; an idle repeated without a running only repeats the last stop reason.',
    source: `${RFD} §state_update notification`,
    tier: 'mandatory',
  },
  {
    id: 'state.stop-reason.known',
    statement:
      'stopReason is one the v2 schema defines (end_turn, max_tokens, max_turn_requests, refusal, cancelled, error) or starts with "_".',
    source: `${RFD} §state_update notification; schema StopReason`,
    tier: 'mandatory',
  },
  {
    id: 'state.work-ends',
    statement: 'The work an accepted prompt starts ends with an idle that carries a stopReason.',
    source: `${RFD} §state_update notification`,
    tier: 'mandatory',
  },
  {
    id: 'cancel.ends-cancelled',
    statement: 'session/cancel during a running turn ends the work with idle and stopReason "cancelled".',
    source: `${RFD} §state_update notification; schema session/cancel`,
    tier: 'mandatory',
  },
  {
    id: 'background.announced-first',
    statement:
      'Each terminal or tool call a background list names was announced (terminal_update, tool_call_update) before the first list that names it.',
    source: 'schema BackgroundWork (official v2 schema)',
    tier: 'mandatory',
  },
  {
    id: 'background.final-before-removal',
    statement:
      "An item leaves the background list only after its end was reported: a terminal's exitStatus, a tool call's final status.",
    source: 'schema BackgroundWork (official v2 schema)',
    tier: 'mandatory',
  },
  {
    id: 'background.listed-once',
    statement:
      'Each piece of background work is listed once: no item twice, and process-backed work as its terminal, not also as its tool call.',
    source: 'schema BackgroundWork (official v2 schema)',
    tier: 'mandatory',
  },
  {
    id: 'background.every-state-update',
    statement:
      'Once a session reported a background list, every later state_update of it carries one ([] when nothing runs; omitted or null means not reported).',
    source: 'schema StateUpdate.background (official v2 schema)',
    tier: 'mandatory',
  },
  {
    id: 'background.cancel-leaves-running',
    statement:
      'session/cancel stops foreground work only: work in the last background list before it is still listed when the cancelled work ends.',
    source: 'schema session/cancel (official v2 schema: background work is not covered)',
    tier: 'advisory',
  },
  {
    id: 'background.repeat-not-completion',
    statement:
      'An idle repeated without a running in between (a snapshot, e.g. of background work) ends nothing: it reports no usage of its own.',
    source: 'schema IdleStateUpdate (official v2 schema: repeated snapshots are not completions or usage)',
    tier: 'advisory',
  },
  {
    id: 'resume.replay.message-id',
    statement:
      'Replay (replayFrom start) brings back each retained live user message under its live ID with its live content, and no ID names two contents; a user message the session never had live (a locally handled command the agent retained) may come under a fresh ID and is reported as a note.',
    source: `${RFD} §Correlation and replay`,
    tier: 'mandatory',
  },
  {
    id: 'resume.replay.reset-before-chunks',
    statement:
      'A message replayed as chunks is first reset with a whole-message update carrying content: [].',
    source: `${RFD} §Streaming user messages`,
    tier: 'mandatory',
  },
  {
    id: 'resume.replay.no-duplicate',
    statement:
      'Replay applied to the copy a client already holds reproduces each message exactly once, never duplicated.',
    source: `${RFD} §Streaming user messages`,
    tier: 'mandatory',
  },
  {
    id: 'resume.no-replay-without-replay-from',
    statement: 'session/resume without replayFrom replays nothing.',
    source: `${RFD} §Correlation and replay`,
    tier: 'mandatory',
  },
  {
    id: 'update.schema',
    statement: 'Every session/update notification validates against the v2 schema.',
    source: 'schema SessionNotification',
    tier: 'mandatory',
  },
  {
    id: 'update.session-id',
    statement:
      'Every session/update carries the sessionId of a session this client created, resumed, forked or prompted, or of a subagent announced on one of those before the update; a transcript that ends before a request naming the session is answered (a live view mid-replay) is not faulted for that session’s updates after the request.',
    source: 'schema SessionNotification; schema SubagentUpdate (unstable)',
    tier: 'mandatory',
  },
  {
    id: 'subagent.announced-first',
    statement:
      'Unstable surface: a subagent is announced with subagent_update on its parent before any update bears its session ID, and no session announces itself (not applicable without subagents).',
    source: 'schema SubagentUpdate (upstream unstable schema)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'fork.replay.retained',
    statement:
      "Unstable surface: a fork's first replay holds every message its source had retained, with the same content; the fork may keep the source's message IDs or give new ones, but an ID it keeps names the same message (not applicable without session/fork).",
    source:
      'session-fork RFD (upstream unstable schema ForkSessionRequest); message-id RFD (IDs unique within a session)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'fork.replay.no-duplicate',
    statement:
      "Unstable surface: a fork's first replay holds its source's content once — no message of the source twice, under its ID and a new one or with its chunks appended again (not applicable without session/fork).",
    source: 'session-fork RFD; v2 prompt-lifecycle RFD §Replay',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'session-message.replay',
    statement:
      'Unstable surface: a session message (session_message, session_message_chunk) that a replay reports again keeps its messageId and participants and ends with the content it had live — reset before its chunks, never appended twice (not applicable without session messages).',
    source: 'schema SessionMessage, SessionMessageChunk (upstream unstable schema)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'nes.suggestion.kind-advertised',
    statement:
      'Unstable surface: every suggestion a nes/suggest result carries is an edit, or of a kind (jump, rename, searchAndReplace) the client advertised in capabilities.nes (not applicable without suggestions).',
    source: 'next-edit-suggestions RFD (upstream unstable schema ClientNesCapabilities, NesSuggestion)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'nes.suggest.context-requested',
    statement:
      'Unstable surface: a nes/suggest carries only the kinds of context the agent asked for in capabilities.nes.context (lint only: it judges the client).',
    source: 'next-edit-suggestions RFD (upstream unstable schema NesContextCapabilities, NesSuggestContext)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'nes.suggestion.position-inside',
    statement:
      'Unstable surface: every position of a suggestion for the requested document (edit ranges, a jump’s or rename’s position) lies inside that document at the version nes/suggest named, in the negotiated position encoding (not applicable when the transcript does not show the document).',
    source:
      'next-edit-suggestions RFD (upstream unstable schema Position, SuggestNesRequest.version, positionEncoding)',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'nes.suggest.answered',
    statement:
      'Unstable surface: every nes/suggest is answered, with suggestions (possibly none) or an error (not applicable without nes/suggest).',
    source:
      'next-edit-suggestions RFD (upstream unstable schema SuggestNesRequest, SuggestNesResponse); JSON-RPC 2.0 §4',
    tier: 'mandatory',
    surface: 'unstable',
  },
  {
    id: 'agent-message.schema',
    statement:
      'Every other agent message is JSON-RPC 2.0 and its results and requests validate against the v2 schema.',
    source: 'schema x-methods',
    tier: 'mandatory',
  },
  {
    id: 'client-message.schema',
    statement:
      'Client messages validate against the v2 schema (lint only: the live kit sends invalid prompts on purpose).',
    source: 'schema x-methods',
    tier: 'advisory',
  },
  {
    id: 'agent.responds',
    statement:
      'The agent answers initialize, session/new (and session/resume when advertised) and stays up (live runs only).',
    source: 'protocol notes §Who is who',
    tier: 'mandatory',
  },
  {
    id: 'baseline.initialize.info',
    statement: "The initialize response carries the agent's info: its name and version.",
    source: 'ACP v2 baseline: schema InitializeResponse.info',
    tier: 'mandatory',
  },
  {
    id: 'baseline.session-list',
    statement: 'session/list is answered with a page of sessions (a required v2 method, never -32601).',
    source: 'ACP v2 baseline: schema x-methods session/list, ListSessionsResponse',
    tier: 'mandatory',
  },
  {
    id: 'baseline.session-close',
    statement:
      'session/close of a session created on the connection is answered with success (a required v2 method).',
    source: 'ACP v2 baseline: schema x-methods session/close',
    tier: 'mandatory',
  },
  {
    id: 'baseline.unknown-values',
    statement:
      'Requests carrying enum values and union variants of a later protocol version (not `_`-prefixed) are answered — a result, or an error refusing the content (not -32603) — and later requests still are.',
    source: 'ACP v2 baseline: schema x-open-enum and x-discriminator (receivers tolerate unknown values)',
    tier: 'mandatory',
  },
  {
    id: 'jsonrpc.params.omitted',
    statement:
      'A request that omits params, for a method whose params require no property (session/list…), is answered as if it carried {} — not refused -32602 or -32600.',
    source:
      'JSON-RPC 2.0 §4 Request object (params MAY be omitted); schema JsonRpcRequest (only id and method required) and x-methods',
    tier: 'mandatory',
  },
  {
    id: 'session.close.cancels-turn',
    statement:
      'session/close of a session whose turn is running or waiting on the user ends that turn as session/cancel does — state_update idle with stopReason "cancelled" — before the close is answered.',
    source:
      'upstream v2 draft session-setup §Closing Active Sessions: the Agent MUST cancel any ongoing work as if session/cancel had been called, then free its resources',
    tier: 'mandatory',
  },
  {
    id: 'session.delete.unknown-succeeds',
    statement:
      'session/delete of a session already deleted, or one that never existed, succeeds silently (an empty result, not -32002).',
    source: 'upstream v2 draft session-delete §Semantics: SHOULD succeed silently',
    tier: 'advisory',
  },
  {
    id: 'transcript.format',
    statement:
      'Each transcript line is {"dir":"client->agent"|"agent->client","t"?:ms,"msg":<JSON-RPC message>} (lint only).',
    source: '@acp-kit/conformance README §Transcript format',
    tier: 'mandatory',
  },
] as const satisfies readonly RuleInfo[];

/** The ID of a rule in the catalog. */
export type RuleId = (typeof RULES)[number]['id'];

const BY_ID = new Map<string, RuleInfo>(RULES.map((rule) => [rule.id, rule]));

/** Looks a rule up by ID. */
export function ruleInfo(id: RuleId): RuleInfo {
  return BY_ID.get(id)!;
}
