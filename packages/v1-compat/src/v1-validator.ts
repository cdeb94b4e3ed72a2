import type { Validator } from '@acp-kit/sdk';
import { validateParams, validateResult } from './generated/v1/validate.js';

/**
 * Validates ACP v1 params and results with the generated v1 validators, for a `Connection` that
 * speaks v1. Methods the v1 schema does not describe pass unchecked.
 */
export const v1SchemaValidator: Validator = {
  params: (method, value) => validateParams(method, value),
  result: (method, value) => validateResult(method, value),
};
