import type { AvailableCommand, SessionConfigOption, SessionId, SystemPrompt } from '@acp-kit/schema';
import type { SessionConfig, SessionLog, SessionRecord } from '../../history/session-log.js';

/**
 * What the agent keeps about a session in its directory record's `config` (the {@link SessionLog}
 * keeps it as JSON, so it survives a restart with the log): the client-visible settings that
 * `session/new`, `session/resume` and `session/list` report.
 */
export interface SessionSettings {
  /** The session's configuration options with their current values. */
  readonly configOptions?: readonly SessionConfigOption[];
  /** The commands available in the session. */
  readonly availableCommands?: readonly AvailableCommand[];
  /** Directories beyond `cwd` the session may use. */
  readonly additionalDirectories?: readonly string[];
  /** Archived (`session/archive`, unstable): left out of `session/list` unless asked for. */
  readonly archived?: boolean;
  /** The client's system prompt (unstable), as the last `session/new`, resume or fork gave it. */
  readonly systemPrompt?: SystemPrompt;
}

/** The settings kept in a directory record (an empty object when none were kept). */
export function settingsOf(record: Pick<SessionRecord, 'config'> | undefined): SessionSettings {
  const config = record?.config;
  if (config === null || config === undefined || typeof config !== 'object') return {};
  const out: { -readonly [K in keyof SessionSettings]: SessionSettings[K] } = {};
  if (Array.isArray(config.configOptions)) out.configOptions = config.configOptions as SessionConfigOption[];
  if (Array.isArray(config.availableCommands))
    out.availableCommands = config.availableCommands as AvailableCommand[];
  if (Array.isArray(config.additionalDirectories))
    out.additionalDirectories = config.additionalDirectories as string[];
  if (config.archived === true) out.archived = true;
  const prompt = config.systemPrompt as { mode?: unknown; content?: unknown } | undefined;
  if (typeof prompt?.mode === 'string' && Array.isArray(prompt.content))
    out.systemPrompt = prompt as SystemPrompt;
  return out;
}

/** The record `config` holding `settings`, keeping whatever else the record's config held. */
export function withSettings(
  config: SessionConfig | null | undefined,
  settings: SessionSettings,
): SessionConfig {
  const merged: Record<string, unknown> = { ...(config ?? {}) };
  for (const [key, value] of Object.entries(settings)) {
    if (value !== undefined) merged[key] = value;
  }
  return merged;
}

/**
 * Per-session writers of the settings, one at a time: a read-modify-write of the record must not
 * lose another one's change.
 */
const chains = new Map<SessionId, Promise<unknown>>();

/** Changes a session's settings (read, apply `change`, write), serialized per session in this process. */
export function updateSettings(
  log: SessionLog,
  sessionId: SessionId,
  change: (current: SessionSettings) => SessionSettings,
): Promise<SessionSettings> {
  const previous = chains.get(sessionId) ?? Promise.resolve();
  const next = previous
    .catch(() => undefined)
    .then(async () => {
      const record = await log.getSession(sessionId);
      const current = settingsOf(record);
      const changed = change(current);
      await log.updateSession(sessionId, { config: withSettings(record?.config, changed) });
      return { ...current, ...changed };
    });
  chains.set(sessionId, next);
  void next
    .finally(() => {
      if (chains.get(sessionId) === next) chains.delete(sessionId);
    })
    .catch(() => undefined);
  return next;
}
