import type { JsonValue } from '../json.js';
import type { SchemaModel } from '../model/model.js';

/** Which way a converter goes: `toV2` turns a v1 value into v2, `toV1` the reverse. */
export type CompatDirection = 'toV1' | 'toV2';

/** How one pair of definitions converts (see schema/compat/mapping.schema.json). */
export type ConversionKind = 'object' | 'union' | 'variant' | 'enum' | 'identity' | 'custom';

/** The extra argument a custom converter takes in one direction. */
export interface ContextModel {
  /** The parameter name. */
  readonly name: string;
  /** Which schema defines its type. */
  readonly version: 'v1' | 'v2';
  /** The definition it is, or whose readonly list it is. */
  readonly definition: string;
  readonly array: boolean;
  /** What the caller passes. */
  readonly description: string;
}

/** One method of either version and its counterpart (null: none). */
export interface MethodMappingModel {
  readonly v1: string | null;
  readonly v2: string | null;
  /** The conversion of the params, by name. */
  readonly params?: string;
  /** The conversion of the result, by name. */
  readonly result?: string;
  readonly lossy?: string;
  readonly note?: string;
}

/** One session/update kind of either version and its counterpart (null: none). */
export interface UpdateMappingModel {
  readonly v1: string | null;
  readonly v2: string | null;
  /** The conversion of the update variant, by name. */
  readonly conversion?: string;
  /** The hand-written v2 → v1 converter of the v2 kind, by name (for more than one conversion). */
  readonly converterToV1?: string;
  /** The hand-written v1 → v2 converter of the v1 kind, by name (for what needs the bridge's session). */
  readonly converterToV2?: string;
  /** Pointer into the v1 ClientCapabilities: sent only to a v1 client that advertised it. */
  readonly v1Capability?: string;
  /** Without a v1 counterpart: the v1 kinds the converterToV1 sends it as. */
  readonly sentAsV1?: readonly string[];
  readonly lossy?: string;
  readonly note?: string;
}

/** How one v2 session/update kind reaches a v1 client, as the update table declares it. */
export interface UpdateToV1Model {
  /** The v2 kind. */
  readonly v2: string;
  /** The v1 kinds it may become (none when it has no v1 form). */
  readonly v1: readonly string[];
  /** The hand-written converter, when there is one. */
  readonly converter?: string;
  /** The generated conversion that translates it, when there is no hand-written converter. */
  readonly conversion?: string;
  /** The v1 client capability it needs. */
  readonly v1Capability?: string;
  /** Why it has no v1 form (reported as the loss), when it has neither converter nor conversion. */
  readonly lossy?: string;
}

/** How one v1 session/update kind reaches a v2 client, as the update table declares it. */
export interface UpdateToV2Model {
  /** The v1 kind. */
  readonly v1: string;
  /** The v2 kinds it may become (none when it has no v2 form). */
  readonly v2: readonly string[];
  /** The hand-written converter, when there is one. */
  readonly converter?: string;
  /** The generated conversion that translates it, when there is no hand-written converter. */
  readonly conversion?: string;
  /** Why it has no v2 form (reported as the loss), when it has neither converter nor conversion. */
  readonly lossy?: string;
}

/** Per-direction settings of an object conversion. */
export interface DirectionSettings {
  /** Source fields deliberately not carried over. */
  readonly drop: readonly string[];
  /** Values for required target fields the source lacks. */
  readonly defaults: Readonly<Record<string, JsonValue>>;
  /** Target fields that always get this value. */
  readonly set: Readonly<Record<string, JsonValue>>;
  /** Enum source value → target value. */
  readonly values: Readonly<Record<string, string>>;
  /** Source fields whose out-of-bounds values are omitted instead of copied. */
  readonly omitInvalid: readonly string[];
  /** Why this direction may lose information, if it can. */
  readonly lossy?: string;
  /** The extra argument of a custom converter in this direction. */
  readonly context?: ContextModel;
}

/** One checked entry of the mapping. */
export interface ConversionModel {
  readonly name: string;
  readonly kind: ConversionKind;
  /** v1 definition name. */
  readonly v1: string;
  /** v2 definition name. */
  readonly v2: string;
  readonly directions: readonly CompatDirection[];
  /** v1 field → v2 field. */
  readonly rename: Readonly<Record<string, string>>;
  readonly toV1: DirectionSettings;
  readonly toV2: DirectionSettings;
  /** `variant` only: the v2 union variant the v1 object corresponds to. */
  readonly variant?: string;
  readonly note?: string;
}

/** The mapping with both schema models, ready for the converter emitter. */
export interface CompatModel {
  /** The mapping file as shown to people. */
  readonly source: string;
  readonly v1: SchemaModel;
  readonly v2: SchemaModel;
  readonly conversions: readonly ConversionModel[];
  /** The method table, when the mapping declares one (every method of both versions). */
  readonly methods: readonly MethodMappingModel[];
  /** The session/update kind table, when the mapping declares one (every kind of both versions). */
  readonly updates: readonly UpdateMappingModel[];
  /** Every v2 session/update kind and how it reaches v1, in v2 schema order (from `updates`). */
  readonly updatesToV1: readonly UpdateToV1Model[];
  /** Every v1 session/update kind and how it reaches v2, in v1 schema order (from `updates`). */
  readonly updatesToV2: readonly UpdateToV2Model[];
}
