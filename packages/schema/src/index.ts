/**
 * @acp-kit/schema — TypeScript bindings, validators and method maps for ACP v2, generated from
 * schema/v2/schema.json by @acp-kit/codegen. Everything under `generated/` is machine-written.
 */
export type * from './generated/types.js';
export type * from './generated/official-names.js';
export * from './generated/known-values.js';
export * from './generated/method-capabilities.js';
export * from './generated/methods.js';
export * from './generated/update-kinds.js';
export * from './generated/validate.js';
export type { ValidationIssue, ValidationResult } from './validation-runtime.js';
