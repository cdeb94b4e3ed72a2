import { type JsonObject, isJsonObject, pointerOf } from '../json.js';
import type { DiscriminatedUnionModel, SchemaModel } from '../model/model.js';
import { stripAnnotations } from './strip-annotations.js';

/** The `$id` the validator schema is registered under inside the emitter's Ajv instance. */
export const VALIDATOR_SCHEMA_ID = 'urn:acp-kit:validators';

/**
 * Suffix of the schema path Ajv reports when a union tag is neither known nor `_`-prefixed.
 * The issue mapper recognises it to add "or a value starting with _" to what was expected.
 */
export const UNKNOWN_TAG_SCHEMA_PATH = /\/else\/properties\/[^/]+\/enum$/;

function localRef(name: string): JsonObject {
  return { $ref: `#${pointerOf('$defs', name)}` };
}

/**
 * Rewrites one union so Ajv compiles it to a switch on the tag instead of trying every branch:
 * `_`-prefixed tags go to the extension branch; everything else must be a known tag and is
 * dispatched by Ajv's `discriminator` keyword. Accepts exactly what the canonical `oneOf` accepts.
 */
function rewriteUnion(union: DiscriminatedUnionModel): JsonObject {
  const tag = union.tag;
  const knownTags = [...new Set(union.variants.map((v) => v.tagValue))];
  const known: JsonObject = {
    type: 'object',
    required: [tag],
    properties: { [tag]: { type: 'string', enum: knownTags } },
    discriminator: { propertyName: tag },
    oneOf: union.variants.map((v) => localRef(v.definition)),
  };
  if (union.extension === undefined) return known;
  return {
    type: 'object',
    required: [tag],
    properties: { [tag]: { type: 'string' } },
    if: { properties: { [tag]: { type: 'string', pattern: '^_' } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: localRef(union.extension),
    else: known,
  };
}

/**
 * Builds the schema the validators are compiled from: a copy of the canonical schema without
 * documentation, with every discriminated union in switch form. A nested union also states the
 * outer tag value its branches share, which Ajv's `discriminator` needs to map it.
 */
export function validatorSchema(model: SchemaModel): JsonObject {
  const defs: JsonObject = {};
  for (const def of model.definitions) defs[def.name] = stripAnnotations(def.schema);
  for (const union of model.unions) defs[union.name] = rewriteUnion(union);
  for (const outer of model.unions) {
    for (const variant of outer.variants) {
      if (variant.kind !== 'union') continue;
      const inner = defs[variant.definition];
      if (!isJsonObject(inner) || !isJsonObject(inner.properties) || !Array.isArray(inner.required)) {
        throw new Error(`validators emitter: nested union ${variant.definition} was not rewritten`);
      }
      inner.properties[outer.tag] = { const: variant.tagValue };
      if (!inner.required.includes(outer.tag)) inner.required.push(outer.tag);
    }
  }
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: VALIDATOR_SCHEMA_ID, $defs: defs };
}
