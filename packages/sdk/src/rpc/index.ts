export { CANCEL_REQUEST_METHOD, MAX_WITHDRAWN_REQUESTS } from './cancellation.js';
export { Connection } from './connection.js';
export {
  type ConnectionOptions,
  DEFAULT_MAX_BATCH_ENTRIES,
  DEFAULT_MAX_QUEUED_BYTES,
  type MessageDirection,
  type RequestOptions,
} from './connection-options.js';
export type {
  HandlerTable,
  NotificationContext,
  NotificationHandler,
  RequestContext,
  RequestHandler,
} from './handlers.js';
export type { Diagnostic, DiagnosticKind } from './diagnostics.js';
export {
  ExtensionNotification,
  type ExtensionNotificationOptions,
  type ExtensionPeer,
  ExtensionRequest,
  type ExtensionRequestSpec,
  extensionNotification,
  extensionRequest,
  type ValueCheck,
} from './extension-methods.js';
export {
  ErrorCodes,
  type ErrorCode,
  RpcError,
  type RpcErrorObject,
  type ValidationErrorData,
} from './errors.js';
export {
  type ClassifiedMessage,
  classifyMessage,
  isRpcId,
  type RpcErrorResponse,
  type RpcId,
  type RpcMessage,
  type RpcNotification,
  type RpcRequest,
  type RpcSuccessResponse,
} from './messages.js';
export type {
  AnyNotificationMap,
  AnyRequestMap,
  ExtensionMethod,
  NotificationMapOf,
  RequestMapOf,
  RequestSignature,
} from './method-maps.js';
export {
  type DecodedLine,
  DEFAULT_MAX_MESSAGE_BYTES,
  decodeStrict,
  encodeNdjsonLine,
  type FrameError,
  NdjsonDecoder,
} from './ndjson.js';
export type {
  Disposable,
  MessageReader,
  MessageReaderListener,
  MessageWriter,
  WriteNote,
  Transport,
} from './transport.js';
export { noValidation, type ValidationIssue, type ValidationResult, type Validator } from './validation.js';
