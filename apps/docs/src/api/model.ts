/** The API reference model: what `build.ts` reads from the published packages' declaration files. */

/** What a public export is, as TypeScript declares it. */
export type ApiKind = 'class' | 'interface' | 'type' | 'function' | 'variable' | 'namespace' | 'enum';

/** One TSDoc block tag (`@param name text`, `@returns text`, `@example …`). */
export interface ApiTag {
  readonly name: string;
  readonly text: string;
}

/** A public member of a class or interface. */
export interface ApiMember {
  readonly name: string;
  /** The member's declaration as written in the `.d.ts`, without its comment. */
  readonly signature: string;
  readonly doc: string;
  readonly tags: readonly ApiTag[];
}

/** One export of one published package. */
export interface ApiItem {
  readonly packageName: string;
  readonly name: string;
  readonly kind: ApiKind;
  /** The first sentence of the TSDoc, for index tables. */
  readonly summary: string;
  readonly doc: string;
  readonly tags: readonly ApiTag[];
  /** The declaration(s) as written in the `.d.ts`; class and interface bodies are listed as `members`. */
  readonly signature: string;
  readonly members: readonly ApiMember[];
  /** The import specifiers this name is exported from (`@acp-kit/sdk`, `@acp-kit/sdk/agent`, …). */
  readonly entryPoints: readonly string[];
  /**
   * Where the item is documented. Hand-written exports get a page of their own
   * (`/api/<package>/<Name>/`); exports generated from a schema are documented on the group page
   * of their generated module (`/api/<package>/<module>/#<Name>`) or, for schema types, on the
   * schema reference page of their definition.
   */
  readonly href: string;
  /** The generated module the declaration comes from (`validate`, `converters`, …), if generated. */
  readonly generatedModule?: string;
  /** For a type generated from a schema definition: that definition's reference page. */
  readonly schemaDefinition?: { readonly version: string; readonly name: string };
}

/** One published package and its exports. */
export interface ApiPackage {
  readonly name: string;
  /** `sdk` for `@acp-kit/sdk`: the URL segment. */
  readonly slug: string;
  readonly version: string;
  readonly description: string;
  /** Import specifiers from the package's exports map, with the names each one exports. */
  readonly entryPoints: readonly { readonly specifier: string; readonly names: readonly string[] }[];
  readonly items: readonly ApiItem[];
  /** Generated modules whose exports share one page each. */
  readonly generatedModules: readonly string[];
  /** The `bin` names the package installs. */
  readonly bins: readonly string[];
}
