/** How every notification this SDK writes begins, up to its method name. */
const HEAD = '{"jsonrpc":"2.0","method":"';
/** What follows the method name when the params start with a `sessionId`. */
const PARAMS_HEAD = '","params":{"sessionId":"';
const BACKSLASH = 0x5c;

/** Whether `text` between `start` and `end` holds no backslash (so no escape to decode). */
function plain(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i += 1) if (text.charCodeAt(i) === BACKSLASH) return false;
  return true;
}

/**
 * The `params.sessionId` of a JSON-RPC notification, read without parsing, when the text has the
 * exact shape this SDK's connections write (`{"jsonrpc":"2.0","method":"…","params":{"sessionId":"…"`)
 * and neither string holds an escape. Undefined for anything else — a request, an answer, params
 * in another order, an escaped string — for which the caller parses the message instead.
 */
export function notificationSession(json: string): string | undefined {
  if (!json.startsWith(HEAD)) return undefined;
  const methodEnd = json.indexOf('"', HEAD.length);
  if (methodEnd < 0 || !plain(json, HEAD.length, methodEnd)) return undefined;
  if (!json.startsWith(PARAMS_HEAD, methodEnd)) return undefined;
  const start = methodEnd + PARAMS_HEAD.length;
  const end = json.indexOf('"', start);
  if (end < 0 || !plain(json, start, end)) return undefined;
  return json.slice(start, end);
}
