import type { JsonObject } from '../json.js';

/** One property of an object definition. */
export interface PropertyModel {
  readonly name: string;
  readonly description: string;
  readonly required: boolean;
  /** The property's JSON schema, as written. */
  readonly schema: JsonObject;
}

/** One entry of `$defs`. */
export interface DefinitionModel {
  readonly name: string;
  readonly description: string;
  /** RFC 6901 pointer of the definition inside the schema file. */
  readonly pointer: string;
  /** The definition's JSON schema, as written. */
  readonly schema: JsonObject;
  /** Direct properties, in the order written (empty for non-object definitions). */
  readonly properties: readonly PropertyModel[];
}

/** A branch of a discriminated union whose tag is one fixed value. */
export interface KnownVariant {
  readonly kind: 'known';
  /** The referenced definition. */
  readonly definition: string;
  readonly tagValue: string;
}

/** A branch that is itself a discriminated union (on another tag) whose branches all share this union's tag value. */
export interface NestedUnionVariant {
  readonly kind: 'union';
  readonly definition: string;
  readonly tagValue: string;
}

/** A known branch: a plain variant or a nested union. */
export type UnionVariant = KnownVariant | NestedUnionVariant;

/** A definition with `x-discriminator`: a `oneOf` that is really a switch on one tag property. */
export interface DiscriminatedUnionModel {
  readonly name: string;
  /** The tag property. */
  readonly tag: string;
  readonly description: string;
  /** Known branches, in schema order. */
  readonly variants: readonly UnionVariant[];
  /**
   * The branch taking the tags no known branch names, if the union is open: every unknown tag
   * (`acceptsUnknown`, the v2 rule) or only `_`-prefixed ones (the older extension-only form).
   */
  readonly extension?: string;
  /** Whether the open branch takes every unknown tag rather than only `_`-prefixed ones. */
  readonly acceptsUnknown: boolean;
}

/** A string type with known values that also accepts values it does not know. */
export interface OpenEnumModel {
  readonly name: string;
  readonly description: string;
  readonly known: readonly string[];
  /** Whether any string is accepted (the v2 rule) rather than only `_`-prefixed extension values. */
  readonly acceptsUnknown: boolean;
}

/** Who sends a method. */
export type MethodDirection = 'client_to_agent' | 'agent_to_client' | 'both';

/** Whether a method expects a response. */
export type MethodKind = 'request' | 'notification';

/** The capability that gates a method (`x-methods/<name>/capability`). */
export interface MethodCapabilityModel {
  /** The definition that advertises it (an initialize message, or an entity such as a tool call). */
  readonly in: string;
  /** RFC 6901 pointer of the capability within `in`. */
  readonly pointer: string;
  /** The pointer's unescaped tokens. */
  readonly path: readonly string[];
  /** The JSON type of the value there (`object`, `array`, `boolean`; `unknown` if several). */
  readonly valueType: string;
  /** Whether `in` is the params or result of `initialize` (else the capability is per entity). */
  readonly atInitialize: boolean;
  readonly description: string;
}

/** One entry of `x-methods`. */
export interface MethodModel {
  /** The wire name, e.g. `session/prompt`. */
  readonly name: string;
  /** A PascalCase identifier derived from the name, e.g. `SessionPrompt`. */
  readonly constName: string;
  readonly direction: MethodDirection;
  readonly kind: MethodKind;
  /** Definition name of the params. */
  readonly params: string;
  /**
   * Whether the params require no property (an object definition without `required`, or an
   * `allOf` of such): JSON-RPC lets a request omit `params`, and a receiver reads the omission as
   * `{}`. False for a union, whose branches each require their tag.
   */
  readonly paramsOptional: boolean;
  /** Definition name of the result (requests only). */
  readonly result?: string;
  readonly description: string;
  /** The capability that gates it; absent for a baseline method (always available). */
  readonly capability?: MethodCapabilityModel;
  /**
   * The same wire name also sent as a notification (`x-methods/<name>/notification`): the other
   * way, as `mcp/message` (a request from the agent, a notification from the client), or the
   * request's own way, as `proxy/successor` (both, in both directions).
   */
  readonly notification?: MethodNotificationModel;
}

/** A request's notification form: its own direction, params and description. */
export interface MethodNotificationModel {
  readonly direction: MethodDirection;
  /** Definition name of the params (accepting what the request's params accept). */
  readonly params: string;
  readonly description: string;
}

/** The normalized model every emitter consumes. */
export interface SchemaModel {
  /** The schema file as shown to people, e.g. `schema/v2/schema.json`. */
  readonly source: string;
  /** The schema's `$id`, if any. */
  readonly id?: string;
  /** The canonical schema, as written (emitters copy before changing anything). */
  readonly schema: JsonObject;
  /** All definitions, in schema order. */
  readonly definitions: readonly DefinitionModel[];
  readonly unions: readonly DiscriminatedUnionModel[];
  readonly openEnums: readonly OpenEnumModel[];
  /** All methods, in schema order. */
  readonly methods: readonly MethodModel[];
}
