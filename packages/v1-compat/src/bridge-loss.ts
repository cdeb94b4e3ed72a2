/**
 * Something a bridge could not carry to the other protocol version. The lossy table in
 * schema/compat/v1-v2.json says which conversions lose what; a bridge reports each loss as it
 * happens instead of dropping it silently.
 */
export interface BridgeLoss {
  /** The session whose message lost it ('' for a method call that names no session). */
  sessionId: string;
  /** The update kind (`sessionUpdate`) or method it belonged to. */
  in: string;
  /** RFC 6901 pointer into that update to the part left out, e.g. `/availableCommands/2`. */
  pointer: string;
  /** Why it has no form on the other side (or, for a warning, what the bridge did about it). */
  reason: string;
  /**
   * Not a loss but a warning: something the bridge took although it deviates from what it
   * expected (a v1 result the official SDK tolerates, a replay that differs from what was seen
   * live), and what it did instead. Nothing was left out.
   */
  warning?: boolean;
}

/** Told what part of an update (pointer into it) was left out, and why. */
export type LeftOut = (pointer: string, reason: string) => void;

/** Receives each {@link BridgeLoss} a bridge reports. */
export type BridgeLossListener = (loss: BridgeLoss) => void;

/** One line describing a loss, as the bridge process logs it. */
export function describeLoss(loss: BridgeLoss): string {
  const where = loss.sessionId === '' ? 'on the connection' : `for session ${loss.sessionId}`;
  if (loss.warning) return `warning: ${loss.in}${loss.pointer} ${where}: ${loss.reason}`;
  // Update kinds have no slash; a method call (proxy/initialize, say) is left out as a whole.
  const part = loss.pointer || (loss.in.includes('/') ? '(the call)' : '(whole update)');
  return `left out ${loss.in} ${part} ${where}: ${loss.reason}`;
}
