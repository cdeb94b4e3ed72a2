import type { SessionConfigOption, SessionId } from '@acp-kit/schema';
import type { Client } from '@acp-kit/sdk';

/** The session's current mode and model, as the client's store holds them now. */
export function modeAndModel(client: Client, sessionId: SessionId): { mode?: string; model?: string } {
  const options = client.store.snapshot(sessionId).configOptions ?? [];
  const current = (category: string) => {
    const option = options.find((o) => o.category === category && o.type === 'select');
    return typeof option?.currentValue === 'string' ? option.currentValue : undefined;
  };
  return { mode: current('mode'), model: current('model') };
}

/** Turns a boolean option on or off; resolves with every option as the agent answered. */
export function toggle(
  client: Client,
  sessionId: SessionId,
  configId: string,
  on: boolean,
): Promise<readonly SessionConfigOption[]> {
  return client.setConfigOption(sessionId, configId, on);
}

/** Calls back whenever the agent reports new option values (config_option_update). */
export function onOptionsChanged(
  client: Client,
  sessionId: SessionId,
  listener: (options: readonly SessionConfigOption[]) => void,
): () => void {
  let last = client.store.snapshot(sessionId).configOptions;
  return client.store.subscribe(() => {
    const now = client.store.snapshot(sessionId).configOptions;
    if (now !== last && now != null) listener(now);
    last = now;
  });
}
