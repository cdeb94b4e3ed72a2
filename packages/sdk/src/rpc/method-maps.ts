/** The shape of one request in a method map: what is sent and what comes back. */
export interface RequestSignature {
  params: unknown;
  result: unknown;
}

/**
 * Constraint for request maps such as `AgentRequestMap` from `@acp-kit/schema`: every key is a
 * method name whose value names its params and result. Written over `keyof M` so interfaces qualify.
 */
export type RequestMapOf<M> = { [K in keyof M]: RequestSignature };

/** Constraint for notification maps such as `ClientNotificationMap`: method name → params type. */
export type NotificationMapOf<M> = { [K in keyof M]: unknown };

/** A request map that accepts any method: the default for untyped connections. */
export type AnyRequestMap = Record<string, RequestSignature>;

/** A notification map that accepts any method. */
export type AnyNotificationMap = Record<string, unknown>;

/** Extension methods (`_vendor/thing`) are always allowed, untyped. */
export type ExtensionMethod = `_${string}`;
