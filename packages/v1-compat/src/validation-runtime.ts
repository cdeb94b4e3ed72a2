/**
 * The runtime the generated v1 validators (`generated/v1/validate.ts`) call: the same one the v2
 * validators use, so v1 and v2 issues have one shape and one wording, and both validators plug
 * into one `Connection`.
 */
export {
  type AjvErrorLike,
  type CompiledValidator,
  runValidator,
  type ValidationIssue,
  type ValidationResult,
} from '@acp-kit/schema/runtime';
