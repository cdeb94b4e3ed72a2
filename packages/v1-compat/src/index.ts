/**
 * @acp-kit/v1-compat — ACP v1 ⇄ v2: the v1 bindings and the converters generated from
 * schema/v1/schema.json and schema/compat/v1-v2.json, and the bridges built on them.
 *
 * @packageDocumentation
 */
import * as converters from './generated/compat/converters.js';
import * as v1MethodCapabilities from './generated/v1/method-capabilities.js';
import * as v1Methods from './generated/v1/methods.js';
import type * as V1 from './generated/v1/types.js';
import * as v1Validation from './generated/v1/validate.js';

/** The ACP v1 types, generated from schema/v1/schema.json: `V1.PromptResponse`, `V1.SessionUpdate`, … */
export type { V1 };
/** The ACP v1 method names and their params and result types, generated from schema/v1/schema.json. */
export { v1Methods };
/** The v1 method → capability table (which capability gates each v1 method), generated from schema/v1. */
export { v1MethodCapabilities };
/** Validators for every ACP v1 definition and method, generated from schema/v1/schema.json. */
export { v1Validation };
/**
 * The value converters generated from schema/compat/v1-v2.json, one pair per mapped definition:
 * `converters.v1ToV2PromptRequest(…)`, `converters.v2ToV1InitializeResponse(…)`, … The bridges use
 * them; reach for them only to translate single messages yourself.
 */
export { converters };
export { V1_MODE_CONFIG_ID, V1_PLAN_ID, v2ModeOption } from './custom-converters.js';
export { CompatError } from './compat-error.js';
export { type BridgeLoss, type BridgeLossListener, describeLoss } from './bridge-loss.js';
export { derivedMessageId, type MessageKind } from './message-ids.js';
export { v1SchemaValidator } from './v1-validator.js';
export {
  type ServeV1AgentAsV2Options,
  serveV1AgentAsV2,
  V1AgentBridge,
  type V1AgentBridgeOptions,
} from './v1-agent-as-v2/v1-agent-bridge.js';
export { FileIdLedger } from './v1-agent-as-v2/file-id-ledger.js';
export { type IdLedger, type LedgerRecord, MemoryIdLedger } from './v1-agent-as-v2/id-ledger.js';
export { V1_ONLY_UPDATES } from './v1-only-updates.js';
export {
  type ServeV2AgentAsV1Options,
  serveV2AgentAsV1,
  type V1AgentConnection,
  type V2AgentBridge,
} from './v2-agent-as-v1/v2-agent-bridge.js';
export { createV1WireCodec, type V1WireCodecOptions, v1WireCodec } from './v2-agent-as-v1/v1-wire-codec.js';
export { runBridge, type RunBridgeOptions } from './run-bridge.js';
export {
  MAX_TERMINAL_OUTPUT_BYTES,
  MAX_TERMINALS_PER_SESSION,
  MAX_TEXT_FILE_BYTES,
  type OpenFileQuery,
  type OutsidePathQuery,
  type V1ClientServicesOptions,
} from './v1-agent-as-v2/client-services.js';
