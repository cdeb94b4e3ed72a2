import { HistoryStoreError } from '@acp-kit/sdk';
import type pg from 'pg';

/** One host (a name, an address or a Unix socket directory) and port of a connection string. */
export interface HostTarget {
  readonly host: string;
  readonly port: number;
}

/** A connection string split into the hosts to try and the settings they share. */
export interface ConnectionTargets {
  /** The hosts, in the order the connection string lists them. */
  readonly hosts: readonly HostTarget[];
  /** Settings shared by every host (user, password, database, TLS …), without a host list. */
  readonly base: pg.ClientConfig;
  /**
   * Whether every connection must be checked to accept writes: several hosts were given, or
   * `target_session_attrs` asked for `read-write` or `primary`.
   */
  readonly checkWritable: boolean;
  /** The connection as messages name it: every host, no password. */
  readonly description: string;
}

const WRITABLE_ATTRS = new Set(['read-write', 'primary']);
const ACCEPTED_ATTRS = new Set(['any', ...WRITABLE_ATTRS]);

function invalid(message: string): HistoryStoreError {
  return new HistoryStoreError('invalid_argument', `connection string: ${message}`, { pointer: '' });
}

/** Splits `a,b` and pairs hosts with ports as libpq does: one port for all, or one per host. */
function pairHosts(hosts: string[], ports: string[]): HostTarget[] {
  if (ports.length > 1 && ports.length !== hosts.length) {
    throw invalid(`${hosts.length} hosts but ${ports.length} ports (give one port, or one per host)`);
  }
  return hosts.map((host, index) => {
    const text = ports.length === 0 ? '' : (ports[ports.length === 1 ? 0 : index] ?? '');
    const port = text === '' ? 5432 : Number(text);
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw invalid(`bad port "${text}"`);
    return { host: host === '' ? 'localhost' : host, port };
  });
}

function checkAttrs(attrs: string | undefined): void {
  if (attrs !== undefined && !ACCEPTED_ATTRS.has(attrs)) {
    throw invalid(
      `target_session_attrs=${attrs} is not supported: the history store writes, so it needs read-write (or primary, or any)`,
    );
  }
}

/** Parses a libpq URL: `postgres://user:pw@h1:p1,h2:p2/db?target_session_attrs=read-write`. */
function parseUrl(connectionString: string): ConnectionTargets {
  const match = /^(postgres(?:ql)?:\/\/)(?:([^@/?#]*)@)?([^/?#]*)(.*)$/.exec(connectionString);
  if (!match) throw invalid('expected a postgres:// URL or key=value settings');
  const [, scheme, userinfo, hostlist = '', rest = ''] = match;
  const queryStart = rest.indexOf('?');
  const path = queryStart < 0 ? rest : rest.slice(0, queryStart);
  const query = new URLSearchParams(queryStart < 0 ? '' : rest.slice(queryStart + 1));
  const attrs = query.get('target_session_attrs') ?? undefined;
  checkAttrs(attrs);
  query.delete('target_session_attrs');
  let hosts: HostTarget[];
  if (hostlist !== '' && !query.has('host')) {
    const names: string[] = [];
    const ports: string[] = [];
    for (const entry of hostlist.split(',')) {
      const bracketed = /^\[([^\]]*)\](?::(\d*))?$/.exec(entry);
      const plain = /^([^:]*)(?::(\d*))?$/.exec(entry);
      const parts = bracketed ?? plain;
      if (!parts) throw invalid(`bad host "${entry}"`);
      names.push(decodeURIComponent(parts[1] ?? ''));
      ports.push(parts[2] ?? '');
    }
    // Ports given with some hosts only: the others use the default.
    hosts = names.map((host, index) => pairHosts([host], ports[index] ? [ports[index]] : [])[0]!);
    const queryPorts = query.get('port');
    if (queryPorts !== null && ports.every((port) => port === '')) {
      hosts = pairHosts(names, queryPorts.split(','));
    }
  } else {
    const names = (query.get('host') ?? 'localhost').split(',');
    hosts = pairHosts(
      names,
      (query.get('port') ?? '').split(',').filter((port) => port !== ''),
    );
  }
  query.delete('host');
  query.delete('port');
  const search = query.toString();
  // The shared settings: the URL with a placeholder host, which each connection replaces.
  const single = `${scheme}${userinfo === undefined ? '' : `${userinfo}@`}localhost${path}${search ? `?${search}` : ''}`;
  const where = hosts.map((target) => `${target.host}:${target.port}`).join(',');
  return {
    hosts,
    base: { connectionString: single },
    checkWritable: hosts.length > 1 || (attrs !== undefined && WRITABLE_ATTRS.has(attrs)),
    description: `postgres://${where}${path}`,
  };
}

/** Parses libpq's `key=value` form: `host=a,b port=5432 dbname=app target_session_attrs=read-write`. */
function parseKeywords(connectionString: string): ConnectionTargets {
  const settings = new Map<string, string>();
  const pattern = /\s*([A-Za-z_]+)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S*))/y;
  let rest = connectionString.trim();
  while (rest !== '') {
    pattern.lastIndex = 0;
    const match = pattern.exec(rest);
    if (!match) throw invalid(`cannot read "${rest}" (expected key=value)`);
    settings.set(match[1]!, match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : (match[3] ?? ''));
    rest = rest.slice(match[0].length).trim();
  }
  const attrs = settings.get('target_session_attrs');
  checkAttrs(attrs);
  const names = (settings.get('host') ?? settings.get('hostaddr') ?? 'localhost').split(',');
  const hosts = pairHosts(
    names,
    (settings.get('port') ?? '').split(',').filter((port) => port !== ''),
  );
  const base: pg.ClientConfig = {};
  const user = settings.get('user');
  const password = settings.get('password');
  const database = settings.get('dbname');
  if (user !== undefined) base.user = user;
  if (password !== undefined) base.password = password;
  if (database !== undefined) base.database = database;
  const sslmode = settings.get('sslmode');
  if (sslmode !== undefined && sslmode !== 'disable' && sslmode !== 'allow' && sslmode !== 'prefer') {
    base.ssl = sslmode === 'require' ? { rejectUnauthorized: false } : true;
  }
  const where = hosts.map((target) => `${target.host}:${target.port}`).join(',');
  return {
    hosts,
    base,
    checkWritable: hosts.length > 1 || (attrs !== undefined && WRITABLE_ATTRS.has(attrs)),
    description: `postgres://${where}/${database ?? user ?? ''}`,
  };
}

/**
 * Reads a connection string as libpq does, with any number of hosts: a URL
 * (`postgres://h1:p1,h2:p2/db?target_session_attrs=read-write`, or Unix socket directories in
 * `?host=/a,/b`) or `key=value` settings (`host=a,b port=5432,5433 dbname=db`). Errors are
 * `invalid_argument` HistoryStoreErrors.
 */
export function parseConnectionTargets(connectionString: string): ConnectionTargets {
  if (/^postgres(?:ql)?:\/\//.test(connectionString)) return parseUrl(connectionString);
  if (/^\s*[A-Za-z_]+\s*=/.test(connectionString)) return parseKeywords(connectionString);
  throw invalid('expected a postgres:// URL or key=value settings');
}
