import type { App } from './app.js';
import { byId, el } from './dom.js';

/** The traffic table's filters and scrolling (the diagram follows them) and the transcript export. */
export function wireTrafficControls(app: App): void {
  const { state, schedule } = app;
  // The diagram follows the traffic table as the reader scrolls it.
  byId('traffic-scroll').addEventListener('scroll', schedule, { passive: true });
  for (const id of ['filter-session', 'filter-method', 'filter-kind', 'session-select'])
    byId(id).addEventListener('input', schedule);

  byId('export').addEventListener('click', () => {
    const blob = new Blob([state.traffic.transcript()], { type: 'application/x-ndjson' });
    const link = el('a', { href: URL.createObjectURL(blob), download: 'transcript.ndjson' });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  });
}
