/**
 * A message's time since the inspector started, as a person reads it: milliseconds under a second
 * (`850 ms`), seconds with a tenth under a minute (`12.3 s`), then minutes and seconds (`2:00.8`,
 * `61:05.0`) — not `120812 ms`.
 */
export function formatElapsed(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '';
  if (Math.round(ms) < 1000) return `${Math.round(ms)} ms`;
  const tenths = Math.round(ms / 100);
  if (tenths < 600) return `${(tenths / 10).toFixed(1)} s`;
  const minutes = Math.floor(tenths / 600);
  const seconds = ((tenths % 600) / 10).toFixed(1).padStart(4, '0');
  return `${minutes}:${seconds}`;
}
