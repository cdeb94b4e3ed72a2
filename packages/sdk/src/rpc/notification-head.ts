/** The text a serialized `session/update` notification starts with, its params following it. */
const SESSION_UPDATE_HEAD = '{"jsonrpc":"2.0","method":"session/update","params":';

/**
 * The JSON text a notification of `method` starts with, up to its params: a constant for
 * `session/update`, the notification a streaming agent sends for every chunk, and made anew
 * for any other method.
 */
export function notificationHead(method: string): string {
  return method === 'session/update'
    ? SESSION_UPDATE_HEAD
    : `{"jsonrpc":"2.0","method":${JSON.stringify(method)},"params":`;
}
