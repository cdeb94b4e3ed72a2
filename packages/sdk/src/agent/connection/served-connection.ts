import type { ClientNotificationMap } from '@acp-kit/schema';
import type { AgentSession } from '../agent-session.js';
import type { ClientPeer } from './client-peer.js';
import type { AgentConnection } from './connection-peer.js';
import type { ConnectionState } from './connection-state.js';
import { type Admission, MethodGate } from './method-gate.js';
import type { MethodTable } from './method-table.js';
import type { ConnectionHost } from './serving.js';

/**
 * One client connection an agent serves, as its feature modules see it: its state, the gate
 * serving the agent's shared method table on it, the peer standing for the client inside
 * sessions, and the sessions it follows. Built by `Agent.serve`, one per connection — kept small,
 * since an agent may hold thousands of idle ones.
 */
export class ServedConnection implements ConnectionHost {
  readonly state: ConnectionState;
  readonly label: string;
  readonly gate: MethodGate<ConnectionHost>;
  readonly peer: ClientPeer;
  readonly #connection: AgentConnection;
  /** The sessions this connection follows (created with the first). */
  #attached: Set<AgentSession> | undefined;

  constructor(
    connection: AgentConnection,
    table: MethodTable<ConnectionHost>,
    admission: Admission<ConnectionHost>,
    state: ConnectionState,
    label: string,
  ) {
    this.#connection = connection;
    this.state = state;
    this.label = label;
    this.gate = new MethodGate<ConnectionHost>(connection, table, admission, this);
    this.peer = this.gate.clientPeer(connection, label);
  }

  /** Attaches the connection to a session (with `hold`, live entries wait until `release`). */
  attach(session: AgentSession, hold = false): void {
    session.clients.attach(this.peer, hold);
    this.#attached ??= new Set();
    this.#attached.add(session);
  }

  /** Sends the client a notification outside any session (for example `auth/status_update`). */
  notify<M extends keyof ClientNotificationMap & string>(
    method: M,
    params: ClientNotificationMap[M],
  ): Promise<void> {
    return this.#connection.sendNotification(method, params);
  }

  /** Detaches the connection from every session it follows (it closed, or logged out). */
  detachAll(): void {
    const attached = this.#attached;
    this.#attached = undefined;
    for (const session of attached ?? []) detachFamily(session, this.peer);
  }
}

/** Detaches `peer` from a session and from every subagent under it (which it followed through it). */
function detachFamily(session: AgentSession, peer: ClientPeer): void {
  session.clients.detach(peer);
  for (const child of session.family.children.values()) detachFamily(child, peer);
}
