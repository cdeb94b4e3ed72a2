/**
 * The conversions schema/compat/v1-v2.json marks `custom`: shapes that differ in structure, not
 * only in field names. The generated `generated/compat/converters.ts` delegates to these.
 */
import type * as V2 from '@acp-kit/schema';
import {
  v1ToV2Implementation,
  v1ToV2PermissionOption,
  v1ToV2PlanEntry,
  v1ToV2ToolCall,
  v2ToV1Implementation,
  v2ToV1PermissionOption,
  v2ToV1PlanEntry,
  v2ToV1ToolCall,
} from './generated/compat/converters.js';
import type * as V1 from './generated/v1/types.js';

export * from './mode-options.js';

/** The planId a v1 plan gets in v2: v1 has exactly one plan per session. */
export const V1_PLAN_ID = 'plan';

/** A v1 diff (one file's old and new text) becomes a v2 diff with one change. */
export function v1ToV2ToolCallDiff(value: V1.ToolCallDiff): V2.ToolCallDiff {
  const hasOld = value.oldText !== undefined && value.oldText !== null;
  const change: V2.DiffAddChange | V2.DiffModifyChange = hasOld
    ? { operation: 'modify', path: value.path, oldText: value.oldText, newText: value.newText }
    : { operation: 'add', path: value.path, newText: value.newText };
  return {
    type: 'diff',
    changes: [change],
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A v2 change that may carry the file's text (add, delete, modify). */
type TextChange = V2.DiffAddChange | V2.DiffDeleteChange | V2.DiffModifyChange;

function isTextChange(change: V2.DiffChange): change is TextChange {
  return change.operation === 'add' || change.operation === 'delete' || change.operation === 'modify';
}

/** Keeps the first change that has new text: v1 can show only one file's before and after. */
export function v2ToV1ToolCallDiff(value: V2.ToolCallDiff): V1.ToolCallDiff {
  const withText = value.changes.filter(isTextChange);
  const change: TextChange | undefined = withText.find((c) => typeof c.newText === 'string') ?? withText[0];
  const path = change?.path ?? value.changes.map((c) => c.path).find((p) => typeof p === 'string');
  return {
    type: 'diff',
    path: typeof path === 'string' ? path : '',
    ...(change?.oldText === undefined ? {} : { oldText: change.oldText }),
    newText: change?.newText ?? '',
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** The single v1 plan becomes v2 plan items under {@link V1_PLAN_ID}. */
export function v1ToV2PlanUpdate(value: V1.PlanUpdate): V2.PlanUpdate {
  return {
    sessionUpdate: 'plan_update',
    plan: { type: 'items', planId: V1_PLAN_ID, entries: value.entries.map((e) => v1ToV2PlanEntry(e)) },
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/**
 * The v1 entries a v2 plan's content shows as: its items; a Markdown or file plan as one pending
 * entry holding the Markdown or naming the file (v1 plans are lists); extension content as none.
 */
function v1EntriesOf(plan: V2.PlanUpdate['plan']): V1.PlanUpdate['entries'] {
  const one = (content: string): V1.PlanUpdate['entries'] => [
    { content, priority: 'medium', status: 'pending' },
  ];
  switch (plan.type) {
    case 'items':
      return (plan as V2.PlanItems).entries.map((e) => v2ToV1PlanEntry(e));
    case 'markdown':
      return one((plan as V2.PlanMarkdown).content);
    case 'file':
      return one(`Plan: ${(plan as V2.PlanFile).uri}`);
    default:
      return [];
  }
}

/** Any v2 plan becomes the session's v1 plan (see {@link v1EntriesOf} for its entries). */
export function v2ToV1PlanUpdate(value: V2.PlanUpdate): V1.PlanUpdate {
  return {
    sessionUpdate: 'plan',
    entries: v1EntriesOf(value.plan),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A v1 permission request is about a tool call; v2 names it as the subject and needs a title. */
export function v1ToV2RequestPermissionRequest(
  value: V1.RequestPermissionRequest,
): V2.RequestPermissionRequest {
  const title = value.toolCall.title;
  return {
    sessionId: value.sessionId,
    title: typeof title === 'string' && title !== '' ? title : 'Allow this tool call?',
    subject: { type: 'tool_call', toolCall: v1ToV2ToolCall(value.toolCall) },
    // v2 requires at least one option; an empty v1 list is left for the v2 validator to reject.
    options: value.options.map((o) => v1ToV2PermissionOption(o)) as [
      V2.PermissionOption,
      ...V2.PermissionOption[],
    ],
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** v1 can only ask about a tool call; other subjects get a placeholder tool call carrying the title. */
export function v2ToV1RequestPermissionRequest(
  value: V2.RequestPermissionRequest,
): V1.RequestPermissionRequest {
  const subject = value.subject;
  const toolCall: V1.ToolCallDetails =
    subject?.type === 'tool_call'
      ? { ...v2ToV1ToolCall((subject as V2.ToolCallPermissionSubject).toolCall) }
      : { toolCallId: 'permission', title: value.title };
  if (toolCall.title === undefined || toolCall.title === null) toolCall.title = value.title;
  return {
    sessionId: value.sessionId,
    toolCall,
    options: value.options.map((o) => v2ToV1PermissionOption(o)),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/**
 * v1 stdio servers carry no type; v1 SSE servers become the v2 extension type `_sse`; a transport
 * neither version knows travels unchanged.
 */
export function v1ToV2McpServer(value: V1.McpServer): V2.McpServer {
  const type = (value as { type?: unknown }).type;
  if (typeof type === 'string' && type !== 'http' && type !== 'sse' && type !== 'stdio') {
    return value as unknown as V2.ExtensionMcpServer;
  }
  if (type === 'http') {
    const { type: _type, ...rest } = value as V1.McpServerHttp;
    return { ...rest, type: 'http' };
  }
  if (type === 'sse') {
    const { type: _type, ...rest } = value as V1.McpServerSse;
    return { ...rest, type: '_sse' } as V2.ExtensionMcpServer;
  }
  const stdio = value as V1.McpServerStdio;
  return { ...stdio, type: 'stdio', args: stdio.args, env: stdio.env };
}

/**
 * v2 stdio and HTTP servers have v1 forms (with empty lists where v1 requires them), `_sse` is v1
 * sse, and any other transport travels unchanged (v1 keeps unknown transports too).
 */
export function v2ToV1McpServer(value: V2.McpServer): V1.McpServer {
  switch (value.type) {
    case 'stdio': {
      const stdio = value as V2.McpServerStdio;
      const { type: _type, ...rest } = stdio;
      return { ...rest, args: stdio.args ?? [], env: stdio.env ?? [] };
    }
    case 'http': {
      const http = value as V2.McpServerHttp;
      return { ...http, type: 'http', headers: http.headers ?? [] };
    }
    case '_sse':
      return { ...(value as V2.ExtensionMcpServer), type: 'sse' } as V1.McpServerSse;
    default:
      return value as unknown as V1.ExtensionMcpServer;
  }
}

function promptCapabilitiesToV2(value: V1.PromptCapabilities | undefined): V2.PromptCapabilities | undefined {
  if (value === undefined) return undefined;
  return {
    ...(value.image ? { image: {} } : {}),
    ...(value.audio ? { audio: {} } : {}),
    ...(value.embeddedContext ? { embeddedContext: {} } : {}),
  };
}

/** The v2 client auth capabilities say terminal: {} where v1 says terminal: true. */
export function v1ToV2ClientAuthCapabilities(value: V1.AuthCapabilities): V2.ClientAuthCapabilities {
  return {
    ...(value.terminal === true ? { terminal: {} } : {}),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A present v2 terminal capability becomes v1 terminal: true. */
export function v2ToV1ClientAuthCapabilities(value: V2.ClientAuthCapabilities): V1.AuthCapabilities {
  return {
    ...(value.terminal === undefined || value.terminal === null ? {} : { terminal: true }),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** v1 terminal logins list their environment as a map; v2 as name/value pairs. */
export function v1ToV2AuthMethod(value: V1.AuthMethod): V2.AuthMethod {
  const { id, type, ...rest } = value as V1.AuthMethodAgent | V1.AuthMethodTerminal;
  if (type === 'terminal') {
    const terminal = value as V1.AuthMethodTerminal;
    return {
      ...rest,
      type: 'terminal',
      methodId: id,
      name: terminal.name,
      ...(terminal.env === undefined
        ? {}
        : { env: Object.entries(terminal.env).map(([name, v]) => ({ name, value: v })) }),
    } as V2.AuthMethodTerminal;
  }
  if (type === undefined || type === 'agent')
    return { ...rest, type: 'agent', methodId: id, name: value.name };
  // A type from a later version: the fields travel as they are.
  return { ...rest, type, methodId: id, name: value.name } as V2.AuthMethod;
}

/** v2 agent methods lose their type in v1 (v1 agent-run methods carry none). */
export function v2ToV1AuthMethod(value: V2.AuthMethod): V1.AuthMethod {
  const { methodId, type, ...rest } = value as V2.AuthMethodAgent;
  switch (value.type) {
    case 'agent':
      return { ...rest, id: methodId, name: value.name };
    case 'terminal': {
      const terminal = value as V2.AuthMethodTerminal;
      return {
        ...rest,
        type: 'terminal',
        id: methodId,
        name: terminal.name,
        ...(terminal.env === undefined
          ? {}
          : { env: Object.fromEntries(terminal.env.map((e) => [e.name, e.value])) }),
      };
    }
    default:
      return { ...rest, type: value.type, id: methodId, name: value.name } as V1.AuthMethodAgent;
  }
}

/** A capability object given (present and not null). */
function given<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}

/**
 * Session capabilities that are an object, present or not, with no field to carry in either
 * version: each given on one side becomes `{}` on the other.
 */
const SESSION_FLAGS = ['delete', 'additionalDirectories', 'fork', 'title', 'status', 'archive'] as const;

/** The {@link SESSION_FLAGS} given in `from`, each as `{}`. */
function sessionFlags(from: Partial<Record<(typeof SESSION_FLAGS)[number], unknown>> | null | undefined) {
  return Object.fromEntries(SESSION_FLAGS.filter((flag) => given(from?.[flag])).map((flag) => [flag, {}]));
}

/**
 * v1 capabilities in the v2 layout: prompt and MCP (http, and acp from both unstable schemas) under
 * `session`, and the optional session methods v2 still marks (delete, additionalDirectories, and
 * from both unstable schemas fork, title, status, archive and systemPrompt); auth.status and
 * providers, nes and positionEncoding (unstable in both) carry over. v2 requires list, close and resume of every agent, so
 * those v1 flags have no v2 field; neither do loadSession and logout.
 */
export function v1ToV2AgentCapabilities(value: V1.AgentCapabilities): V2.AgentCapabilities {
  const prompt = promptCapabilitiesToV2(value.promptCapabilities);
  const sessions = value.sessionCapabilities;
  const session: V2.SessionCapabilities = {
    ...(prompt === undefined ? {} : { prompt }),
    ...(value.mcpCapabilities === undefined
      ? {}
      : {
          mcp: {
            stdio: {},
            ...(value.mcpCapabilities.http === true ? { http: {} } : {}),
            ...(value.mcpCapabilities.acp === true ? { acp: {} } : {}),
          },
        }),
    ...sessionFlags(sessions),
    ...(given(sessions?.systemPrompt) ? { systemPrompt: sessions.systemPrompt } : {}),
  };
  return {
    session,
    ...(value.auth === undefined ? {} : { auth: given(value.auth.status) ? { status: {} } : {} }),
    ...(given(value.providers) ? { providers: {} } : {}),
    // Next edit suggestions (unstable in both): the same shapes, so they carry over as they are.
    ...(given(value.nes) ? { nes: value.nes as V2.NesCapabilities } : {}),
    ...(given(value.positionEncoding) ? { positionEncoding: value.positionEncoding } : {}),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/**
 * A v2 agent answers session/resume (with replay), session/list, session/close and auth/logout,
 * so the v1 side announces loadSession, resume, list, close and logout, plus what v2 marks.
 */
export function v2ToV1AgentCapabilities(value: V2.AgentCapabilities): V1.AgentCapabilities {
  const session = value.session;
  const prompt = session?.prompt;
  const mcp = session?.mcp;
  return {
    loadSession: true,
    ...(prompt === undefined || prompt === null
      ? {}
      : {
          promptCapabilities: {
            image: given(prompt.image),
            audio: given(prompt.audio),
            embeddedContext: given(prompt.embeddedContext),
          },
        }),
    ...(mcp === undefined || mcp === null
      ? {}
      : {
          mcpCapabilities: {
            http: given(mcp.http),
            sse: false,
            ...(given(mcp.acp) ? { acp: true } : {}),
          },
        }),
    sessionCapabilities: {
      list: {},
      resume: {},
      close: {},
      ...sessionFlags(session),
      ...(given(session?.systemPrompt) ? { systemPrompt: session.systemPrompt } : {}),
    },
    auth: { logout: {}, ...(given(value.auth?.status) ? { status: {} } : {}) },
    ...(given(value.providers) ? { providers: {} } : {}),
    ...(given(value.nes) ? { nes: value.nes as V1.NesCapabilities } : {}),
    ...(given(value.positionEncoding) ? { positionEncoding: value.positionEncoding } : {}),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** The same shapes in both versions; a v1 form schema may leave out type and properties, which v2 requires. */
export function v1ToV2CreateElicitationRequest(
  value: V1.CreateElicitationRequest,
): V2.CreateElicitationRequest {
  if (value.mode !== 'form') return value as unknown as V2.CreateElicitationRequest;
  const form = value as V1.ElicitationFormRequest;
  return {
    ...form,
    requestedSchema: {
      ...form.requestedSchema,
      type: 'object',
      properties: form.requestedSchema.properties ?? {},
    },
  } as unknown as V2.CreateElicitationRequest;
}

/** A v2 elicitation request is already a valid v1 one. */
export function v2ToV1CreateElicitationRequest(
  value: V2.CreateElicitationRequest,
): V1.CreateElicitationRequest {
  return value as unknown as V1.CreateElicitationRequest;
}

/** v1 agentInfo and agentCapabilities are v2 info (required: unnamed-v1-agent when missing) and capabilities. */
export function v1ToV2InitializeResponse(value: V1.InitializeResponse): V2.InitializeResponse {
  return {
    protocolVersion: 2,
    info:
      value.agentInfo === undefined || value.agentInfo === null
        ? { name: 'unnamed-v1-agent', version: '0' }
        : v1ToV2Implementation(value.agentInfo),
    ...(value.agentCapabilities === undefined
      ? {}
      : { capabilities: v1ToV2AgentCapabilities(value.agentCapabilities) }),
    ...(value.authMethods === undefined
      ? {}
      : { authMethods: value.authMethods.map((m) => v1ToV2AuthMethod(m)) }),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/**
 * v2 info and capabilities are v1 agentInfo and agentCapabilities. A v2 agent serves auth/logout
 * exactly when it lists auth methods, so the v1 `auth.logout` capability is kept only then: a v1
 * client is offered what is served, no more. `auth.status` (unstable) is the agent's own
 * advertisement and stays either way.
 */
export function v2ToV1InitializeResponse(value: V2.InitializeResponse): V1.InitializeResponse {
  const servesLogout = (value.authMethods?.length ?? 0) > 0;
  let agentCapabilities: V1.AgentCapabilities | undefined;
  if (value.capabilities !== undefined) {
    const { auth, ...rest } = v2ToV1AgentCapabilities(value.capabilities);
    const { logout, ...others } = auth ?? {};
    const kept = servesLogout && logout !== undefined ? { ...others, logout } : others;
    agentCapabilities = Object.keys(kept).length > 0 ? { ...rest, auth: kept } : rest;
  }
  return {
    protocolVersion: 1,
    ...(agentCapabilities === undefined ? {} : { agentCapabilities }),
    ...(value.authMethods === undefined
      ? {}
      : { authMethods: value.authMethods.map((m) => v2ToV1AuthMethod(m)) }),
    agentInfo: v2ToV1Implementation(value.info),
    ...(value._meta === undefined ? {} : { _meta: value._meta }),
  };
}

/** A subagent's mirrored state: the same open object in v1's unstable schema, unknown fields kept. */
export function v1ToV2SubagentState(value: V1.SubagentState): V2.SubagentState {
  return value as V2.SubagentState;
}

/** v1 has no background list: it is left out of the state; every other field is kept as it is. */
export function v2ToV1SubagentState(value: V2.SubagentState): V1.SubagentState {
  const { background: _background, ...rest } = value;
  return rest as V1.SubagentState;
}

/**
 * A suggestion of a kind neither version knows travels with every field it has (both keep unknown
 * kinds); only its ID changes name, v1's `id` being v2's `suggestionId`.
 */
export function v1ToV2UnknownNesSuggestion(value: V1.UnknownNesSuggestion): V2.UnknownNesSuggestion {
  const { id, ...rest } = value;
  return { ...rest, suggestionId: id } as V2.UnknownNesSuggestion;
}

/** The v2 → v1 form of {@link v1ToV2UnknownNesSuggestion}: `suggestionId` becomes `id`. */
export function v2ToV1UnknownNesSuggestion(value: V2.UnknownNesSuggestion): V1.UnknownNesSuggestion {
  const { suggestionId, ...rest } = value;
  return { ...rest, id: suggestionId } as V1.UnknownNesSuggestion;
}
