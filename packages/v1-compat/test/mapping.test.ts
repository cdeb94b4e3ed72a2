import { type DefinitionName, validate as validateV2 } from '@acp-kit/schema';
import type * as V2 from '@acp-kit/schema';
import { describe, expect, it } from 'vitest';
import { CompatError, V1_MODE_CONFIG_ID } from '../src/index.js';
import { METHODS } from '../src/generated/v1/methods.js';
import type * as V1 from '../src/generated/v1/types.js';
import { UPDATE_KINDS } from '../src/generated/v1/update-kinds.js';
import { validate as validateV1 } from '../src/generated/v1/validate.js';
import {
  METHOD_MAPPING,
  UPDATE_MAPPING,
  v1ToV2AgentCapabilities,
  v1ToV2AvailableCommandsUpdate,
  v1ToV2ClientCapabilities,
  v1ToV2ContentBlock,
  v1ToV2CurrentModeUpdate,
  v1ToV2InitializeResponse,
  v1ToV2NewSessionResponse,
  v1ToV2NewToolCall,
  v1ToV2SetSessionConfigOptionRequest,
  v1ToV2SetSessionMode,
  v1ToV2SetSessionModeResponse,
  v1ToV2ToolCallLocation,
  v2ToV1AgentCapabilities,
  v2ToV1AvailableCommandsUpdate,
  v2ToV1ContentBlock,
  v2ToV1CurrentModeUpdate,
  v2ToV1InitializeResponse,
  v2ToV1NewSessionResponse,
  v2ToV1PlanUpdate,
  v2ToV1SetSessionConfigOptionRequest,
  v2ToV1SetSessionMode,
} from '../src/generated/compat/converters.js';

function validV2(definition: string, value: unknown): readonly unknown[] {
  const result = validateV2(definition as DefinitionName, value);
  return result.ok ? [] : result.issues;
}

function validV1(definition: string, value: unknown): readonly unknown[] {
  const result = validateV1(definition as V1.DefinitionName, value);
  return result.ok ? [] : result.issues;
}

describe('resource links', () => {
  it('keep their description from v1 to v2 and back (v2 has the field)', () => {
    const link: V1.ResourceLink = {
      type: 'resource_link',
      name: 'spec.md',
      uri: 'file:///home/user/project/spec.md',
      description: 'The design notes.',
    };
    const v2 = v1ToV2ContentBlock(link);
    expect(v2).toMatchObject({ description: 'The design notes.' });
    expect(validV2('ContentBlock', v2)).toEqual([]);
    expect(v2ToV1ContentBlock(v2)).toEqual(link);
  });
});

describe('tool call locations', () => {
  it('omit a v1 line 0, which v2 rejects, and keep the path', () => {
    expect(v1ToV2ToolCallLocation({ path: '/home/user/a.ts', line: 0 })).toEqual({ path: '/home/user/a.ts' });
  });

  it('copy lines from 1 up, and null, unchanged', () => {
    expect(v1ToV2ToolCallLocation({ path: '/a.ts', line: 1 })).toEqual({ path: '/a.ts', line: 1 });
    expect(v1ToV2ToolCallLocation({ path: '/a.ts', line: 42 })).toEqual({ path: '/a.ts', line: 42 });
    expect(v1ToV2ToolCallLocation({ path: '/a.ts', line: null })).toEqual({ path: '/a.ts', line: null });
  });

  it('turn a v1 tool call reporting line 0 into a tool_call_update v2 accepts', () => {
    const update = v1ToV2NewToolCall({
      sessionUpdate: 'tool_call',
      toolCallId: 'call-1',
      title: 'Read a.ts',
      locations: [
        { path: '/home/user/a.ts', line: 0 },
        { path: '/home/user/b.ts', line: 7 },
      ],
    });
    expect(validV2('SessionUpdate', update)).toEqual([]);
    expect(update.locations).toEqual([{ path: '/home/user/a.ts' }, { path: '/home/user/b.ts', line: 7 }]);
  });
});

const MODES: V1.SessionModeState = {
  currentModeId: 'code',
  availableModes: [
    { id: 'code', name: 'Code' },
    { id: 'architect', name: 'Architect', description: 'Plans before editing.' },
  ],
};
const MODEL_OPTION: V1.SessionConfigOption = {
  type: 'select',
  id: 'model',
  name: 'Model',
  category: 'model',
  currentValue: 'fast',
  options: [
    { value: 'fast', name: 'Fast' },
    { value: 'deep', name: 'Deep' },
  ],
};

describe('modes and configuration options', () => {
  it('turn v1 modes into a v2 select option of category mode next to the v1 options', () => {
    const v2 = v1ToV2NewSessionResponse({ sessionId: 's1', modes: MODES, configOptions: [MODEL_OPTION] });
    expect(validV2('NewSessionResponse', v2)).toEqual([]);
    const { id: _id, ...model } = MODEL_OPTION as V1.SessionConfigSelect;
    expect(v2.configOptions).toEqual([
      { ...model, configId: 'model' },
      {
        type: 'select',
        configId: V1_MODE_CONFIG_ID,
        name: 'Mode',
        category: 'mode',
        currentValue: 'code',
        options: [
          { value: 'code', name: 'Code' },
          { value: 'architect', name: 'Architect', description: 'Plans before editing.' },
        ],
      },
    ]);
  });

  it('do not add a mode option when a v1 option already has category mode', () => {
    const own: V1.SessionConfigOption = { ...MODEL_OPTION, id: 'persona', category: 'mode' };
    const v2 = v1ToV2NewSessionResponse({ sessionId: 's1', modes: MODES, configOptions: [own] });
    expect(v2.configOptions?.map((o) => o.configId)).toEqual(['persona']);
  });

  it('give a v1 client both options and modes from a v2 mode option', () => {
    const v2: V2.NewSessionResponse = {
      sessionId: 's1',
      configOptions: [
        {
          type: 'select',
          configId: 'mode',
          name: 'Mode',
          category: 'mode',
          currentValue: 'ask',
          options: [{ groupId: 'all', name: 'All', options: [{ value: 'ask', name: 'Ask' }] }],
        },
        { type: 'boolean', configId: 'web', name: 'Web search', currentValue: true },
      ],
      availableCommands: [{ type: 'command', name: 'test', description: 'Runs the tests' }],
    };
    const v1 = v2ToV1NewSessionResponse(v2);
    expect(validV1('NewSessionResponse', v1)).toEqual([]);
    expect(v1.modes).toEqual({ currentModeId: 'ask', availableModes: [{ id: 'ask', name: 'Ask' }] });
    expect(v1.configOptions?.map((o) => (o as { id: string }).id)).toEqual(['mode', 'web']);
    expect(v1.configOptions?.[0]).toMatchObject({ options: [{ group: 'all', name: 'All' }] });
  });

  it('map session/set_mode onto session/set_config_option of the mode option and back', () => {
    const v2 = v1ToV2SetSessionMode({ sessionId: 's1', modeId: 'architect' });
    expect(v2).toEqual({ type: 'id', sessionId: 's1', configId: 'mode', value: 'architect' });
    expect(validV2('SetSessionConfigOptionRequest', v2)).toEqual([]);
    expect(v2ToV1SetSessionMode(v2)).toEqual({ sessionId: 's1', modeId: 'architect' });
  });

  it('refuse to turn another option into a v1 set_mode, with a pointer', () => {
    expect(() =>
      v2ToV1SetSessionMode({ type: 'id', sessionId: 's1', configId: 'model', value: 'x' }),
    ).toThrow(CompatError);
    try {
      v2ToV1SetSessionMode({ type: 'boolean', sessionId: 's1', configId: 'web', value: true });
    } catch (error) {
      expect((error as CompatError).pointer).toBe('/configId');
    }
  });

  it('answer a v1 set_mode in v2 with the options the caller passes', () => {
    const options = v1ToV2NewSessionResponse({ sessionId: 's1', modes: MODES }).configOptions ?? [];
    const answer = v1ToV2SetSessionModeResponse({}, options);
    expect(validV2('SetSessionConfigOptionResponse', answer)).toEqual([]);
    expect(answer.configOptions).toEqual(options);
  });

  it('set config option values: untyped v1 select values are v2 id values, booleans stay booleans', () => {
    const select = v1ToV2SetSessionConfigOptionRequest({ sessionId: 's1', configId: 'model', value: 'deep' });
    expect(select).toEqual({ type: 'id', sessionId: 's1', configId: 'model', value: 'deep' });
    const flag = v1ToV2SetSessionConfigOptionRequest({
      sessionId: 's1',
      configId: 'web',
      type: 'boolean',
      value: false,
    });
    expect(flag).toEqual({ type: 'boolean', sessionId: 's1', configId: 'web', value: false });
    for (const v of [select, flag]) expect(validV2('SetSessionConfigOptionRequest', v)).toEqual([]);
    expect(v2ToV1SetSessionConfigOptionRequest(select)).toEqual({
      sessionId: 's1',
      configId: 'model',
      value: 'deep',
    });
    expect(v2ToV1SetSessionConfigOptionRequest(flag)).toEqual({
      sessionId: 's1',
      configId: 'web',
      type: 'boolean',
      value: false,
    });
  });

  it('report a v1 mode switch as the whole v2 option set with the new mode, and back', () => {
    const options = v1ToV2NewSessionResponse({ sessionId: 's1', modes: MODES, configOptions: [MODEL_OPTION] })
      .configOptions as V2.SessionConfigOption[];
    const update = v1ToV2CurrentModeUpdate(
      { sessionUpdate: 'current_mode_update', currentModeId: 'architect' },
      options,
    );
    expect(validV2('SessionUpdate', update)).toEqual([]);
    expect(update.configOptions.map((o) => (o as V2.SessionConfigSelect).currentValue)).toEqual([
      'fast',
      'architect',
    ]);
    expect(options[1]).toMatchObject({ currentValue: 'code' });
    expect(v2ToV1CurrentModeUpdate(update)).toEqual({
      sessionUpdate: 'current_mode_update',
      currentModeId: 'architect',
    });
  });

  it('have no current_mode_update for options without a mode option', () => {
    expect(() =>
      v2ToV1CurrentModeUpdate({
        sessionUpdate: 'config_option_update',
        configOptions: [{ type: 'boolean', configId: 'web', name: 'Web', currentValue: true }],
      }),
    ).toThrow(CompatError);
  });
});

describe('authentication', () => {
  const v1: V1.InitializeResponse = {
    protocolVersion: 1,
    agentCapabilities: { loadSession: true, auth: { logout: {} } },
    authMethods: [
      { id: 'oauth', name: 'Browser login', description: 'Opens a browser.' },
      { type: 'terminal', id: 'cli', name: 'Terminal login', args: ['login'], env: { NO_COLOR: '1' } },
    ],
    agentInfo: { name: 'agent', version: '1.0.0' },
  };

  it('carries auth methods into v2 (agent methods get their type, env becomes pairs) and back', () => {
    const v2 = v1ToV2InitializeResponse(v1);
    expect(validV2('InitializeResponse', v2)).toEqual([]);
    expect(v2.authMethods).toEqual([
      { type: 'agent', methodId: 'oauth', name: 'Browser login', description: 'Opens a browser.' },
      {
        type: 'terminal',
        methodId: 'cli',
        name: 'Terminal login',
        args: ['login'],
        env: [{ name: 'NO_COLOR', value: '1' }],
      },
    ]);
    const back = v2ToV1InitializeResponse(v2);
    expect(validV1('InitializeResponse', back)).toEqual([]);
    expect(back.authMethods).toEqual(v1.authMethods);
  });

  it('lists authenticate as auth/login and logout as auth/logout', () => {
    expect(METHOD_MAPPING.find((m) => m.v1 === 'authenticate')).toMatchObject({ v2: 'auth/login' });
    expect(METHOD_MAPPING.find((m) => m.v1 === 'logout')).toMatchObject({ v2: 'auth/logout' });
  });
});

describe('capabilities', () => {
  it('moves v1 agent capabilities into the v2 session layout', () => {
    const v2 = v1ToV2AgentCapabilities({
      loadSession: true,
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
      sessionCapabilities: { list: {}, delete: {}, close: {}, additionalDirectories: {} },
      auth: { logout: {} },
    });
    expect(v2).toEqual({
      session: {
        prompt: { image: {}, embeddedContext: {} },
        mcp: { stdio: {}, http: {} },
        delete: {},
        additionalDirectories: {},
      },
      auth: {},
    });
    expect(validV2('AgentCapabilities', v2)).toEqual([]);
  });

  it('offers a v1 client everything a v2 agent answers', () => {
    const v1 = v2ToV1AgentCapabilities({ session: { mcp: { stdio: {}, http: {} }, delete: {} } });
    expect(v1).toEqual({
      loadSession: true,
      mcpCapabilities: { http: true, sse: false },
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {} },
      auth: { logout: {} },
    });
    expect(validV1('AgentCapabilities', v1)).toEqual([]);
  });

  it('offers a v1 client MCP servers of type acp as v1 unstable mcpCapabilities.acp, and takes it back', () => {
    const v1 = v2ToV1AgentCapabilities({ session: { mcp: { http: {}, acp: {} } } });
    expect(v1.mcpCapabilities).toEqual({ http: true, sse: false, acp: true });
    expect(validV1('AgentCapabilities', v1)).toEqual([]);
    expect(v1ToV2AgentCapabilities(v1).session?.mcp).toEqual({ stdio: {}, http: {}, acp: {} });
    const without = v2ToV1AgentCapabilities({ session: { mcp: { http: {} } } });
    expect(without.mcpCapabilities).toEqual({ http: true, sse: false });
  });

  it('carries the capabilities both unstable schemas have, and offers none the agent lacks', () => {
    const v2 = {
      session: {
        fork: {},
        title: {},
        status: {},
        archive: {},
        systemPrompt: { mode: { override: {} } },
      },
      auth: { status: {} },
      providers: {},
    };
    const v1 = v2ToV1AgentCapabilities(v2);
    expect(v1.sessionCapabilities).toMatchObject(v2.session);
    expect(v1.auth).toEqual({ logout: {}, status: {} });
    expect(v1.providers).toEqual({});
    expect(validV1('AgentCapabilities', v1)).toEqual([]);
    expect(v1ToV2AgentCapabilities(v1)).toMatchObject(v2);
    const stable = v2ToV1AgentCapabilities({ session: {} });
    for (const key of ['fork', 'title', 'status', 'archive', 'systemPrompt'])
      expect(stable.sessionCapabilities, key).not.toHaveProperty(key);
    expect(stable.auth).toEqual({ logout: {} });
    expect(stable).not.toHaveProperty('providers');
    expect(v1ToV2AgentCapabilities({ auth: {} }).auth).toEqual({});
  });

  it('drops v1 client fs and terminal capabilities and translates auth', () => {
    const v2 = v1ToV2ClientCapabilities({
      fs: { readTextFile: true, writeTextFile: true },
      terminal: true,
      auth: { terminal: true },
      elicitation: { form: {} },
    });
    expect(v2).toEqual({ auth: { terminal: {} }, elicitation: { form: {} } });
  });
});

describe('slash commands', () => {
  it('get their v2 type and input type, and lose them again in v1', () => {
    const v1: V1.AvailableCommandsUpdate = {
      sessionUpdate: 'available_commands_update',
      availableCommands: [
        { name: 'test', description: 'Runs the tests', input: { hint: 'a file' } },
        { name: 'clear', description: 'Clears the screen' },
      ],
    };
    const v2 = v1ToV2AvailableCommandsUpdate(v1);
    expect(validV2('SessionUpdate', v2)).toEqual([]);
    expect(v2.availableCommands[0]).toEqual({
      type: 'command',
      name: 'test',
      description: 'Runs the tests',
      input: { type: 'text', hint: 'a file' },
    });
    expect(v2ToV1AvailableCommandsUpdate(v2)).toEqual(v1);
  });

  it('have no v1 form for a command of a later type', () => {
    expect(() =>
      v2ToV1AvailableCommandsUpdate({
        sessionUpdate: 'available_commands_update',
        availableCommands: [{ type: 'workflow', name: 'x' } as unknown as V2.AvailableCommand],
      }),
    ).toThrow(CompatError);
  });
});

describe('plans', () => {
  it('show a v1 client a Markdown or file plan (unstable) as one pending entry, and extension content as none', () => {
    const plan = (content: V2.PlanUpdate['plan']): V1.PlanUpdate =>
      v2ToV1PlanUpdate({ sessionUpdate: 'plan_update', plan: content });
    const markdown = plan({ type: 'markdown', planId: 'notes', content: '1. Read\n2. Fix' });
    expect(markdown.entries).toEqual([{ content: '1. Read\n2. Fix', priority: 'medium', status: 'pending' }]);
    const file = plan({ type: 'file', planId: 'notes', uri: 'file:///repo/PLAN.md' });
    expect(file.entries).toEqual([
      { content: 'Plan: file:///repo/PLAN.md', priority: 'medium', status: 'pending' },
    ]);
    expect(plan({ type: '_mindmap', planId: 'notes' } as never).entries).toEqual([]);
    for (const converted of [markdown, file]) expect(validV1('SessionUpdate', converted)).toEqual([]);
  });
});

describe('the method and update tables', () => {
  it('list every v1 method with its v2 counterpart or why it has none', () => {
    for (const method of METHODS) {
      const row = METHOD_MAPPING.find((m) => m.v1 === method.name);
      expect(row, method.name).toBeDefined();
      if (row?.v2 === null) expect(row.lossy, method.name).toBeTruthy();
    }
    expect(METHOD_MAPPING.filter((m) => m.v2 === null).map((m) => m.v1)).toEqual([
      'proxy/initialize',
      'proxy/successor',
      'fs/read_text_file',
      'fs/write_text_file',
      'terminal/create',
      'terminal/output',
      'terminal/wait_for_exit',
      'terminal/kill',
      'terminal/release',
    ]);
  });

  it('list every v1 update kind with its v2 counterpart', () => {
    for (const kind of UPDATE_KINDS) {
      const row = UPDATE_MAPPING.find((u) => u.v1 === kind);
      expect(row?.v2, kind).toBeTruthy();
    }
    expect(UPDATE_MAPPING.find((u) => u.v1 === 'current_mode_update')?.v2).toBe('config_option_update');
    expect(UPDATE_MAPPING.find((u) => u.v1 === 'tool_call')?.v2).toBe('tool_call_update');
    expect(UPDATE_MAPPING.find((u) => u.v1 === 'plan')?.v2).toBe('plan_update');
  });
});
