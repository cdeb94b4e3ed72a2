/**
 * @acp-kit/v1-compat/browser — the parts of the v1 ⇄ v2 bridge that run in a browser (nothing
 * here needs Node): the v1 validators, the converters, derived message IDs and the
 * {@link V1ConversationTranslator} that turns v1 traffic into the v2 updates a ConversationStore takes.
 */
export type * as V1 from './generated/v1/types.js';
export * as v1Validation from './generated/v1/validate.js';
export * from './generated/compat/converters.js';
export { derivedMessageId, type MessageKind } from './message-ids.js';
export { V1ConversationTranslator } from './v1-conversation.js';
