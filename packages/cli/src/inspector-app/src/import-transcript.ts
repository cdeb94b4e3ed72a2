import { V1ConversationTranslator } from '@acp-kit/v1-compat/browser';
import type { App } from './app.js';
import { byId } from './dom.js';
import { freshStore } from './state.js';
import { Traffic } from './traffic.js';

const record = (value: unknown): Record<string, unknown> | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;

/** The Import control and Back to live: a transcript file shown offline (see {@link importTranscript}). */
export function wireImport(app: App): void {
  const { state, act, schedule, noteResponse, foldIntoStore } = app;

  /**
   * Shows a transcript (the export's ndjson) offline: its messages in the traffic, validated and
   * linted, and its session updates in a fresh store. A line that is not a transcript entry is listed
   * as garbage where it stood. Back to live reloads the page, which replays the inspector's log.
   */
  function importTranscript(name: string, text: string): void {
    state.offline = true;
    state.traffic.dispose();
    state.traffic = new Traffic(() => schedule());
    state.store = freshStore(schedule);
    state.v1Conversation = new V1ConversationTranslator();
    state.sessions.length = 0;
    byId<HTMLSelectElement>('session-select').replaceChildren();
    state.expanded.clear();
    let entries = 0;
    // Numbered as acp-kit lint numbers them, so the lint of the file pins each finding to its row.
    const lines = text.split(/\r?\n/);
    for (const [i, line] of lines.entries()) {
      if (line.trim() === '') continue;
      let entry: Record<string, unknown> | undefined;
      try {
        entry = record(JSON.parse(line));
      } catch {
        entry = undefined;
      }
      const dir = entry?.dir === 'client->agent' || entry?.dir === 'agent->client' ? entry.dir : undefined;
      // A recording note of the conformance kit is not a message (the lint reads it apart).
      if (entry !== undefined && typeof entry.note === 'string' && !('dir' in entry)) continue;
      if (entry === undefined || dir === undefined || !('msg' in entry)) {
        state.traffic.add('agent->client', 0, line, { line: i + 1, notEntry: true });
        continue;
      }
      entries += 1;
      const t = typeof entry.t === 'number' ? entry.t : 0;
      const row = state.traffic.add(dir, t, JSON.stringify(entry.msg), { line: i + 1 });
      const msg = record(row.msg);
      noteResponse(row);
      foldIntoStore(dir, msg);
    }
    // The file is linted as acp-kit lint reads it: a file that is not a transcript fails transcript.format.
    state.traffic.useSource(text);
    byId('status').textContent = `offline: ${name} (${entries} message(s)); the live traffic is not shown`;
    byId('back-to-live').hidden = false;
    schedule();
  }

  byId<HTMLInputElement>('import').addEventListener('change', (event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file === undefined) return;
    void act('import', async () => importTranscript(file.name, await file.text()));
  });
  byId('back-to-live').addEventListener('click', () => location.reload());
}
