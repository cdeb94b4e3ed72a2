/**
 * Something a bridge could not carry to the other protocol version. The lossy table in
 * schema/compat/v1-v2.json says which conversions lose what; a bridge reports each loss as it
 * happens instead of dropping it silently.
 */
export interface BridgeLoss {
  /** The session whose message lost it; `''` for what concerns no one session (a proxy-chain request, say). */
  sessionId: string;
  /** The update kind (`sessionUpdate`) or method it belonged to. */
  in: string;
  /** RFC 6901 pointer into that update to the part left out, e.g. `/availableCommands/2`. */
  pointer: string;
  /** Why it has no form on the other side. */
  reason: string;
}

/** Told what part of an update (pointer into it) was left out, and why. */
export type LeftOut = (pointer: string, reason: string) => void;

/** Receives each {@link BridgeLoss} a bridge reports. */
export type BridgeLossListener = (loss: BridgeLoss) => void;

/** One line describing a loss, as the bridge process logs it. */
export function describeLoss(loss: BridgeLoss): string {
  const session = loss.sessionId === '' ? '' : ` for session ${loss.sessionId}`;
  // A method name has a slash; an update kind has none.
  const whole = loss.in.includes('/') ? '(whole message)' : '(whole update)';
  return `left out ${loss.in} ${loss.pointer || whole}${session}: ${loss.reason}`;
}
