import type { Socket } from 'node:net';

/**
 * An `'error'` listener that destroys the socket it was emitted on (`this`). A plain function, not
 * a closure: a listener lives as long as its socket, and a closure would keep the whole scope it
 * was made in (an upgrade request, say) for as long.
 */
export function destroySocket(this: Socket): void {
  this.destroy();
}
