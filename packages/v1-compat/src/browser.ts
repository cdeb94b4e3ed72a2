/**
 * @acp-kit/v1-compat/browser — the parts of the v1 ⇄ v2 bridge that run in a browser (nothing
 * here needs Node): the v1 validators, the converters, derived message IDs and the
 * {@link V1ConversationTranslator} that turns v1 traffic into the v2 updates a ConversationStore takes.
 */
import * as converters from './generated/compat/converters.js';
import type * as V1 from './generated/v1/types.js';
import * as v1Validation from './generated/v1/validate.js';

/** The ACP v1 types, generated from schema/v1/schema.json: `V1.PromptResponse`, `V1.SessionUpdate`, … */
export type { V1 };
/** Validators for every ACP v1 definition and method, generated from schema/v1/schema.json. */
export { v1Validation };
/** The value converters generated from schema/compat/v1-v2.json: `converters.v1ToV2PromptRequest(…)`, … */
export { converters };
export { derivedMessageId, type MessageKind } from './message-ids.js';
export { V1ConversationTranslator } from './v1-conversation.js';
