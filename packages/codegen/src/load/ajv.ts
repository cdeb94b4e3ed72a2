import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Options } from 'ajv';

/** The annotation keywords our schemas add on top of draft 2020-12. */
export const ANNOTATION_KEYWORDS = [
  'x-methods',
  'x-discriminator',
  'x-open-enum',
  'x-chunk-of',
  'x-appends-to',
  'x-unstable',
] as const;

/**
 * A strict draft 2020-12 Ajv instance that knows our annotation keywords.
 * Formats are annotations everywhere, so they are never validated. `strictRequired` stays off:
 * `"not": {"required": ["id"]}` (how JSON-RPC notifications say "no id") names a property
 * on purpose without defining it.
 */
export function createStrictAjv(options: Options = {}): Ajv2020 {
  return new Ajv2020({
    strict: true,
    strictRequired: false,
    allowUnionTypes: true,
    validateFormats: false,
    allErrors: true,
    keywords: [...ANNOTATION_KEYWORDS],
    ...options,
  });
}
