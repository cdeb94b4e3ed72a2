import type { DisableProviderRequest, LlmProtocol, ProviderInfo, SetProviderRequest } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** Where one provider sends requests, secrets included (never reported to clients). */
export interface ProviderRoute {
  /** The API the endpoint speaks. */
  readonly apiType: LlmProtocol;
  /** The endpoint's base URL. */
  readonly baseUrl: string;
  /** Headers to send with each request (authorization, routing…). */
  readonly headers: Readonly<Record<string, string>>;
}

/** One LLM provider an agent can route to (see {@link AgentMethodOptions.providers}). */
export interface ProviderDefinition {
  /** Its ID (`main`, `embeddings`…). */
  readonly providerId: string;
  /** The APIs a client may choose for it with `providers/set`. */
  readonly supported: readonly LlmProtocol[];
  /** The agent cannot work without it: `providers/disable` is refused. Default false. */
  readonly required?: boolean;
  /** Where it routes before any `providers/set`; omitted: disabled. */
  readonly initial?: ProviderRoute;
}

function invalid(pointer: string, message: string, expected: string): RpcError {
  return new RpcError(ErrorCodes.InvalidParams, message, { pointer: `/params${pointer}`, expected });
}

/**
 * The LLM providers of an agent (unstable, upstream's custom-llm-endpoint draft): what
 * `providers/list` shows, `providers/set` replaces and `providers/disable` turns off, shared by
 * every connection of the agent and kept in memory only (headers are secrets: they are never
 * listed, logged or written to the history). The agent reads a provider's route with
 * {@link route} whenever it sends a model request.
 */
export class ProviderRegistry {
  readonly #definitions = new Map<string, ProviderDefinition>();
  readonly #routes = new Map<string, ProviderRoute | null>();

  constructor(definitions: readonly ProviderDefinition[]) {
    for (const definition of definitions) {
      if (this.#definitions.has(definition.providerId)) {
        throw new TypeError(`provider ${definition.providerId} is defined twice`);
      }
      this.#definitions.set(definition.providerId, definition);
      this.#routes.set(definition.providerId, definition.initial ?? null);
    }
  }

  /** Where `providerId` sends requests now, or null while it is disabled (undefined: no such provider). */
  route(providerId: string): ProviderRoute | null | undefined {
    return this.#routes.get(providerId);
  }

  /** `providers/list`: every provider with its non-secret configuration. */
  list(): ProviderInfo[] {
    return [...this.#definitions.values()].map((definition) => {
      const route = this.#routes.get(definition.providerId) ?? null;
      return {
        providerId: definition.providerId,
        supported: [...definition.supported],
        required: definition.required ?? false,
        current: route === null ? null : { apiType: route.apiType, baseUrl: route.baseUrl },
      };
    });
  }

  /**
   * `providers/set`: replaces the provider's whole route. -32602 at the pointer for an unknown
   * provider, an API it does not list in `supported`, or a base URL that is not an absolute http(s)
   * URL; nothing changes then.
   */
  set(request: SetProviderRequest): void {
    const definition = this.#known(request.providerId);
    if (!definition.supported.includes(request.apiType)) {
      throw invalid(
        '/apiType',
        `Provider ${request.providerId} does not support the ${JSON.stringify(request.apiType)} API`,
        definition.supported.join(' or '),
      );
    }
    let url: URL | undefined;
    try {
      url = new URL(request.baseUrl);
    } catch {
      url = undefined;
    }
    if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      throw invalid(
        '/baseUrl',
        `baseUrl ${JSON.stringify(request.baseUrl)} is not an http(s) URL`,
        'an absolute http or https URL',
      );
    }
    this.#routes.set(request.providerId, {
      apiType: request.apiType,
      baseUrl: request.baseUrl,
      headers: Object.freeze({ ...(request.headers ?? {}) }),
    });
  }

  /** `providers/disable`: -32602 for an unknown or a required provider. */
  disable(request: DisableProviderRequest): void {
    const definition = this.#known(request.providerId);
    if (definition.required) {
      throw invalid(
        '/providerId',
        `Provider ${request.providerId} is required and cannot be disabled`,
        'a provider that is not required',
      );
    }
    this.#routes.set(request.providerId, null);
  }

  #known(providerId: string): ProviderDefinition {
    const definition = this.#definitions.get(providerId);
    if (definition === undefined) {
      throw invalid(
        '/providerId',
        `Unknown provider ${JSON.stringify(providerId)}`,
        [...this.#definitions.keys()].join(' or ') || 'no provider (none is configurable)',
      );
    }
    return definition;
  }
}
