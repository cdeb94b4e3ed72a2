/**
 * The schema reference as plain, serialisable data: what one page per definition shows. Built
 * at build time from @acp-kit/codegen's model (see `build.ts`) and stored in a content
 * collection, so the pages never import the compiler themselves.
 */

/** A piece of a rendered type: text, optionally linking to a definition of the same schema. */
export interface TypeToken {
  readonly text: string;
  /** Definition name the token links to. */
  readonly ref?: string;
}

/** One row of a fields table. */
export interface FieldEntry {
  readonly name: string;
  readonly type: readonly TypeToken[];
  readonly required: boolean;
  readonly description: string;
  /** Constraints worth showing next to the type (`pattern ^_`, `minLength 1`, …). */
  readonly constraints: readonly string[];
}

/** One known branch of a discriminated union. */
export interface VariantEntry {
  readonly tagValue: string;
  readonly definition: string;
  /** True when the branch is itself a discriminated union. */
  readonly nested: boolean;
}

/** A method that uses a definition (or, on the overview, every method). */
export interface MethodEntry {
  readonly name: string;
  readonly direction: 'client_to_agent' | 'agent_to_client' | 'both';
  readonly kind: 'request' | 'notification';
  readonly params: string;
  readonly result?: string;
  readonly description: string;
  /** The capability that gates it (where it is advertised); absent for a baseline method. */
  readonly capability?: { readonly in: string; readonly pointer: string; readonly description: string };
}

/** One file of `schema/<version>/examples/<Definition>/`. */
export interface ExampleEntry {
  /** The case name, i.e. the file name without `.json`. */
  readonly name: string;
  /** Repository-relative path, shown under the example. */
  readonly file: string;
  /** The file's text, exactly as written. */
  readonly text: string;
}

/** What kind of definition a page describes; decides which sections it has. */
export type DefinitionKind = 'object' | 'union' | 'open-enum' | 'enum' | 'scalar';

/** Everything one reference page shows. */
export interface DefinitionEntry {
  /** Schema version folder, e.g. `v2`. */
  readonly version: string;
  readonly name: string;
  readonly kind: DefinitionKind;
  readonly description: string;
  /** The type as written when the definition is not an object (a string, a union of refs, …). */
  readonly type: readonly TypeToken[];
  readonly constraints: readonly string[];
  readonly fields: readonly FieldEntry[];
  /** Discriminated unions only. */
  readonly union?: {
    readonly tag: string;
    readonly variants: readonly VariantEntry[];
    readonly extension?: string;
  };
  /** Known values of an enum or open enum. */
  readonly values: readonly string[];
  /** Methods whose params or result is this definition. */
  readonly methods: readonly MethodEntry[];
  /** Definitions that reference this one. */
  readonly usedBy: readonly string[];
  readonly examples: readonly ExampleEntry[];
  /** The definition's JSON Schema, pretty-printed. */
  readonly schemaText: string;
}

/** One schema version: its overview page. */
export interface VersionEntry {
  readonly version: string;
  /** Repository-relative schema path. */
  readonly source: string;
  readonly title: string;
  readonly description: string;
  readonly methods: readonly MethodEntry[];
  /** Definition names with their one-line summaries, in schema order. */
  readonly definitions: readonly {
    readonly name: string;
    readonly kind: DefinitionKind;
    readonly summary: string;
  }[];
}
