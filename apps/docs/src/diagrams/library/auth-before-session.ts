import type { SequenceDiagram } from '@acp-kit/conformance/diagram';

/** An agent that requires login: session methods fail -32000 until auth/login succeeds on the connection. */
export const authBeforeSession: SequenceDiagram = {
  id: 'diagram-auth-before-session',
  title: 'Logging in before the first session',
  summary:
    'The agent advertises its authMethods in the initialize response and requires a login. A session/new sent before auth/login is refused with -32000; after a successful login on the same connection it creates the session.',
  participants: [
    { id: 'client', label: 'Client' },
    { id: 'agent', label: 'Agent' },
  ],
  steps: [
    {
      type: 'arrow',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'initialize',
      detail: 'protocolVersion: 2',
    },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: 'authMethods: [{ methodId: "api-key" }]',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/new', detail: 'cwd' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'error',
      label: 'error -32000',
      detail: 'authentication required',
    },
    {
      type: 'arrow',
      id: 'login',
      from: 'client',
      to: 'agent',
      kind: 'request',
      label: 'auth/login',
      detail: 'methodId: "api-key"',
    },
    { type: 'note', over: ['agent'], lines: ['checks its credentials', '(login handler)'] },
    {
      type: 'arrow',
      id: 'loggedIn',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: '{}',
    },
    { type: 'arrow', from: 'client', to: 'agent', kind: 'request', label: 'session/new', detail: 'cwd' },
    {
      type: 'arrow',
      from: 'agent',
      to: 'client',
      kind: 'response',
      label: 'result',
      detail: '{ sessionId }',
    },
  ],
  pending: [{ participant: 'client', from: 'login', to: 'loggedIn' }],
};
