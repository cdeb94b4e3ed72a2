import { type JsonObject, type JsonValue, isJsonObject, pointerOf } from '../json.js';
import type { DiscriminatedUnionModel, SchemaModel } from '../model/model.js';
import { stripAnnotations } from './strip-annotations.js';

/** The `$id` the validator schema is registered under inside the emitter's Ajv instance. */
export const VALIDATOR_SCHEMA_ID = 'urn:acp-kit:validators';

/** Name of the validator-only copy of an unknown branch that does not re-check its tag. */
function uncheckedTagName(branch: string): string {
  return `${branch}WithUncheckedTag`;
}

function localRef(name: string): JsonObject {
  return { $ref: `#${pointerOf('$defs', name)}` };
}

/**
 * Rewrites one union so Ajv compiles it to a switch on the tag instead of trying every branch.
 * A known tag (the common case) passes the `if` without Ajv recording any error, and Ajv's
 * `discriminator` dispatches it; any other tag must be `_`-prefixed and goes to the extension
 * branch. The unknown-tag check lists the known tags and the extension pattern side by side, so
 * the resulting issue names both. Accepts exactly what the canonical `oneOf` accepts.
 */
function rewriteUnion(union: DiscriminatedUnionModel): JsonObject {
  const tag = union.tag;
  const knownTags = [...new Set(union.variants.map((v) => v.tagValue))];
  const dispatch: JsonObject = {
    discriminator: { propertyName: tag },
    oneOf: union.variants.map((v) => localRef(v.definition)),
  };
  if (union.extension === undefined) {
    return {
      type: 'object',
      required: [tag],
      properties: { [tag]: { type: 'string', enum: knownTags } },
      ...dispatch,
    };
  }
  if (union.acceptsUnknown) {
    // Every tag is acceptable: a known one dispatches to its branch, any other string is checked
    // only against the unknown branch's base shape (whose own tag check is skipped here).
    return {
      type: 'object',
      required: [tag],
      properties: { [tag]: { type: 'string' } },
      if: { properties: { [tag]: { enum: knownTags } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
      then: { type: 'object', required: [tag], ...dispatch },
      else: localRef(uncheckedTagName(union.extension)),
    };
  }
  return {
    type: 'object',
    required: [tag],
    properties: { [tag]: { type: 'string' } },
    if: { properties: { [tag]: { enum: knownTags } } },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else keyword, not a thenable.
    then: { type: 'object', required: [tag], ...dispatch },
    else: {
      allOf: [
        { properties: { [tag]: { type: 'string', anyOf: [{ enum: knownTags }, { pattern: '^_' }] } } },
        localRef(union.extension),
      ],
    },
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
  for (const union of model.unions) {
    if (union.extension === undefined || !union.acceptsUnknown) continue;
    // The union's `else` already established that the tag is unknown; its copy of the branch
    // skips re-checking that (the branch's own validator keeps the check).
    const branch = structuredClone(defs[union.extension]);
    const tagSchema =
      isJsonObject(branch) && isJsonObject(branch.properties) ? branch.properties[union.tag] : undefined;
    if (isJsonObject(tagSchema)) delete tagSchema.not;
    defs[uncheckedTagName(union.extension)] = branch ?? {};
  }
  // An open enum that takes any string is, for validation, a string.
  for (const openEnum of model.openEnums) {
    if (openEnum.acceptsUnknown) defs[openEnum.name] = { type: 'string' };
  }
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
  inlineKnownVariants(model, defs);
  return { $id: VALIDATOR_SCHEMA_ID, $defs: defs };
}

/**
 * Compiles each union's known plain variants into its switch: the dispatch `oneOf` gets a copy of
 * the variant's schema instead of a `$ref`, so validating a union value costs one validator call
 * instead of two (the variant's own validator is still emitted for direct use). The `$ref`s inside
 * the copy are document-absolute, so they resolve as before; nested unions stay references.
 */
function inlineKnownVariants(model: SchemaModel, defs: JsonObject): void {
  for (const union of model.unions) {
    const rewritten = defs[union.name];
    if (!isJsonObject(rewritten)) continue;
    const holder = isJsonObject(rewritten.then) ? rewritten.then : rewritten;
    if (!Array.isArray(holder.oneOf)) continue;
    holder.oneOf = union.variants.map((variant) => {
      const schema = defs[variant.definition];
      return variant.kind === 'known' && isJsonObject(schema)
        ? structuredClone(schema)
        : localRef(variant.definition);
    });
  }
}

/**
 * True when every `minLength` in the schema is 0 or 1 and there is no `maxLength`: then counting
 * UTF-16 code units (`string.length`) and counting code points give the same verdict, since both
 * are zero exactly for the empty string.
 */
export function lengthLimitsIgnoreSurrogates(value: JsonValue): boolean {
  if (Array.isArray(value)) return value.every(lengthLimitsIgnoreSurrogates);
  if (!isJsonObject(value)) return true;
  // A property *named* maxLength holds a schema object, not a number, so it is not mistaken here.
  if (typeof value.maxLength === 'number') return false;
  if (typeof value.minLength === 'number' && value.minLength > 1) return false;
  return Object.values(value).every(lengthLimitsIgnoreSurrogates);
}
