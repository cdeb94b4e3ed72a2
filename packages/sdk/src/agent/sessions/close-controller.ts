import { setMaxListeners } from 'node:events';

/**
 * The controller of a session's `closed` signal, without Node's listener-count warning: every
 * prompt waiting for insertion listens for the session's close (and stops listening once it
 * settles), so a session with more than ten prompts pending at once is normal, not a leak.
 */
export function closeController(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
