/**
 * `providers/list`, `providers/set` and `providers/disable` (upstream's unstable surface): served
 * and advertised when the agent is given provider definitions; a set replaces the whole route (the
 * agent reads it, headers included) and is listed without its headers; what the agent cannot apply
 * is refused with -32602 at the pointer and changes nothing; without definitions, -32601.
 */
import { describe, expect, it } from 'vitest';
import { Agent, type AgentOptions } from '../../src/agent/index.js';
import { refusal, wire } from './harness.js';

const options: AgentOptions = {
  info: { name: 'providers-agent', version: '0.0.0' },
  unstable: true,
  async onPrompt(prompt, { session }) {
    await prompt.insert();
    await session.idle('end_turn');
  },
  providers: [
    {
      providerId: 'main',
      supported: ['anthropic', 'openai'],
      required: true,
      initial: { apiType: 'anthropic', baseUrl: 'https://api.anthropic.com', headers: {} },
    },
    { providerId: 'embeddings', supported: ['openai'] },
  ],
};

describe('providers', () => {
  it('lists the providers, routes one where providers/set says (headers kept, never listed), and disables one', async () => {
    const agent = new Agent(options);
    const { client } = wire(agent);
    const init = await client.initialize();
    expect(init.capabilities?.providers).toEqual({});
    expect(await client.listProviders()).toEqual([
      {
        providerId: 'main',
        supported: ['anthropic', 'openai'],
        required: true,
        current: { apiType: 'anthropic', baseUrl: 'https://api.anthropic.com' },
      },
      { providerId: 'embeddings', supported: ['openai'], required: false, current: null },
    ]);
    await client.setProvider({
      providerId: 'main',
      apiType: 'openai',
      baseUrl: 'https://gateway.example.com/v1',
      headers: { Authorization: 'Bearer secret-token' },
    });
    expect(agent.providers?.route('main')).toEqual({
      apiType: 'openai',
      baseUrl: 'https://gateway.example.com/v1',
      headers: { Authorization: 'Bearer secret-token' },
    });
    const listed = await client.listProviders();
    expect(listed[0]!.current).toEqual({ apiType: 'openai', baseUrl: 'https://gateway.example.com/v1' });
    expect(JSON.stringify(listed)).not.toContain('secret-token');
    // Another connection of the same agent sees the same providers.
    const other = wire(agent);
    await client.setProvider({
      providerId: 'embeddings',
      apiType: 'openai',
      baseUrl: 'https://e.example.com',
    });
    expect((await other.client.listProviders())[1]!.current).toEqual({
      apiType: 'openai',
      baseUrl: 'https://e.example.com',
    });
    await other.client.disableProvider('embeddings');
    expect(agent.providers?.route('embeddings')).toBeNull();
    expect((await client.listProviders())[1]!.current).toBeNull();
  });

  it('refuses an unknown provider, an unsupported API, a base URL that is not http(s) and disabling a required provider, changing nothing', async () => {
    const agent = new Agent(options);
    const { client } = wire(agent);
    const before = await client.listProviders();
    const cases: [Promise<unknown>, string, string][] = [
      [
        client.setProvider({ providerId: 'nope', apiType: 'openai', baseUrl: 'https://x.example.com' }),
        '/params/providerId',
        'main or embeddings',
      ],
      [
        client.setProvider({ providerId: 'main', apiType: 'bedrock', baseUrl: 'https://x.example.com' }),
        '/params/apiType',
        'anthropic or openai',
      ],
      [
        client.setProvider({ providerId: 'main', apiType: 'openai', baseUrl: 'file:///etc/passwd' }),
        '/params/baseUrl',
        'an absolute http or https URL',
      ],
      [
        client.setProvider({ providerId: 'main', apiType: 'openai', baseUrl: 'gateway/v1' }),
        '/params/baseUrl',
        'an absolute http or https URL',
      ],
      [client.disableProvider('main'), '/params/providerId', 'a provider that is not required'],
      [client.disableProvider('nope'), '/params/providerId', 'main or embeddings'],
    ];
    for (const [call, pointer, expected] of cases) {
      const error = await refusal(call);
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ pointer, expected });
    }
    expect(await client.listProviders()).toEqual(before);
  });

  it('is neither served (-32601) nor advertised by an agent given no providers', async () => {
    const { client } = wire({ ...options, providers: undefined });
    const init = await client.initialize();
    expect(init.capabilities?.providers ?? undefined).toBeUndefined();
    const error = await refusal(client.listProviders());
    expect(error.code).toBe(-32601);
    expect(error.message).toContain('providers/list');
  });
});
