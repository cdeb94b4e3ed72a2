import { validateParams, validateResult } from '@acp-kit/schema';
import type { Validator } from './validation.js';

/**
 * Validates ACP v2 params and results with the generated validators of `@acp-kit/schema`.
 * Methods the schema does not define (extensions, non-ACP methods) pass unchecked. This is the
 * default validator of every {@link Connection}.
 */
export const schemaValidator: Validator = {
  params: (method, value) => validateParams(method, value),
  result: (method, value) => validateResult(method, value),
};
