import { HistoryStoreError } from '@acp-kit/sdk';
import type pg from 'pg';
import { SCHEMA_VERSION } from './schema-version.js';

/** SQLSTATEs raised by this package's functions, mapped to history store errors by the store. */
export const RAISED = {
  sessionNotFound: 'AK001',
  duplicateMessage: 'AK002',
  ambiguousTarget: 'AK003',
  messageNotFound: 'AK004',
  leaseLost: 'AK005',
} as const;

/**
 * Migrations by target version: `migrations(s)[n - 1]` takes schema `s` from version n-1 to n. All
 * run in one transaction under an advisory lock, so replicas starting together migrate once and a
 * failed migration leaves the schema as it was. `s` is a checked, quoted identifier.
 */
function migrations(s: string): readonly string[] {
  return [
    `
    CREATE TABLE ${s}.sessions (
      ordinal    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- creation order; never reused
      session_id text NOT NULL UNIQUE,
      cwd        text NOT NULL,
      created_at text NOT NULL,
      last_seq   bigint NOT NULL DEFAULT 0  -- the row lock on it orders appends across replicas
    );
    CREATE TABLE ${s}.messages (
      session     bigint NOT NULL REFERENCES ${s}.sessions(ordinal) ON DELETE CASCADE,
      seq         bigint NOT NULL,
      kind        text NOT NULL CHECK (kind IN ('user_message', 'agent_message', 'agent_thought')),
      message_id  text NOT NULL,
      via         text NOT NULL CHECK (via IN ('full', 'chunks')),
      meta        text,          -- JSON text, kept byte for byte (jsonb would reorder keys)
      block_count integer NOT NULL DEFAULT 0,
      PRIMARY KEY (session, seq),
      UNIQUE (session, kind, message_id)
    );
    CREATE INDEX messages_by_id ON ${s}.messages (session, message_id);
    -- One row per content block, so a chunk is one INSERT instead of rewriting the whole message.
    CREATE TABLE ${s}.blocks (
      session bigint NOT NULL,
      seq     bigint NOT NULL,
      idx     integer NOT NULL,
      block   text NOT NULL,     -- JSON text
      PRIMARY KEY (session, seq, idx),
      FOREIGN KEY (session, seq) REFERENCES ${s}.messages(session, seq) ON DELETE CASCADE
    );
    -- Every message ID ever issued or retained, so an ID is never handed out twice.
    CREATE TABLE ${s}.issued_ids (
      session    bigint NOT NULL REFERENCES ${s}.sessions(ordinal) ON DELETE CASCADE,
      message_id text NOT NULL,
      PRIMARY KEY (session, message_id)
    );

    -- Each write is one function call: one round trip, one statement, atomic.
    CREATE FUNCTION ${s}.append_message(
      p_session text, p_kind text, p_message_id text, p_via text, p_meta text, p_blocks text[]
    ) RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE v_ordinal bigint; v_seq bigint;
    BEGIN
      UPDATE ${s}.sessions SET last_seq = last_seq + 1 WHERE session_id = p_session
        RETURNING ordinal, last_seq INTO v_ordinal, v_seq;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.sessionNotFound}', MESSAGE = 'session not found';
      END IF;
      INSERT INTO ${s}.messages (session, seq, kind, message_id, via, meta, block_count)
        VALUES (v_ordinal, v_seq, p_kind, p_message_id, p_via, p_meta, cardinality(p_blocks))
        ON CONFLICT (session, kind, message_id) DO NOTHING;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.duplicateMessage}', MESSAGE = 'message already retained';
      END IF;
      INSERT INTO ${s}.blocks (session, seq, idx, block)
        SELECT v_ordinal, v_seq, (t.ord - 1)::integer, t.block
        FROM unnest(p_blocks) WITH ORDINALITY AS t(block, ord);
      INSERT INTO ${s}.issued_ids (session, message_id) VALUES (v_ordinal, p_message_id)
        ON CONFLICT DO NOTHING;
      RETURN v_seq;
    END
    $fn$;

    -- Locks the targeted message row and returns (session ordinal, seq, block_count before).
    -- p_kind NULL: find by bare ID, refusing to guess between kinds.
    CREATE FUNCTION ${s}.lock_message(p_session text, p_kind text, p_message_id text,
      OUT o_ordinal bigint, OUT o_seq bigint, OUT o_count integer
    ) LANGUAGE plpgsql AS $fn$
    DECLARE v_n integer;
    BEGIN
      SELECT ordinal INTO o_ordinal FROM ${s}.sessions WHERE session_id = p_session;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.sessionNotFound}', MESSAGE = 'session not found';
      END IF;
      IF p_kind IS NULL THEN
        SELECT count(*) INTO v_n FROM ${s}.messages WHERE session = o_ordinal AND message_id = p_message_id;
        IF v_n > 1 THEN
          RAISE EXCEPTION USING ERRCODE = '${RAISED.ambiguousTarget}', MESSAGE = 'message ID retained under several kinds';
        END IF;
        SELECT seq, block_count INTO o_seq, o_count FROM ${s}.messages
          WHERE session = o_ordinal AND message_id = p_message_id FOR UPDATE;
      ELSE
        SELECT seq, block_count INTO o_seq, o_count FROM ${s}.messages
          WHERE session = o_ordinal AND kind = p_kind AND message_id = p_message_id FOR UPDATE;
      END IF;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.messageNotFound}', MESSAGE = 'message not retained';
      END IF;
    END
    $fn$;

    CREATE FUNCTION ${s}.append_chunk(p_session text, p_kind text, p_message_id text, p_block text)
    RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE m record;
    BEGIN
      SELECT * INTO m FROM ${s}.lock_message(p_session, p_kind, p_message_id);
      INSERT INTO ${s}.blocks (session, seq, idx, block) VALUES (m.o_ordinal, m.o_seq, m.o_count, p_block);
      UPDATE ${s}.messages SET block_count = m.o_count + 1 WHERE session = m.o_ordinal AND seq = m.o_seq;
    END
    $fn$;

    CREATE FUNCTION ${s}.replace_content(
      p_session text, p_kind text, p_message_id text, p_blocks text[], p_via text
    ) RETURNS void LANGUAGE plpgsql AS $fn$
    DECLARE m record;
    BEGIN
      SELECT * INTO m FROM ${s}.lock_message(p_session, p_kind, p_message_id);
      DELETE FROM ${s}.blocks WHERE session = m.o_ordinal AND seq = m.o_seq;
      INSERT INTO ${s}.blocks (session, seq, idx, block)
        SELECT m.o_ordinal, m.o_seq, (t.ord - 1)::integer, t.block
        FROM unnest(p_blocks) WITH ORDINALITY AS t(block, ord);
      UPDATE ${s}.messages SET block_count = cardinality(p_blocks), via = coalesce(p_via, via)
        WHERE session = m.o_ordinal AND seq = m.o_seq;
    END
    $fn$;
    `,
    // Version 2: the session log (SessionLog) — a directory of sessions and, per session, one
    // append-only, numbered log of session/update bodies, with message claims and issued IDs.
    `
    CREATE TABLE ${s}.log_sessions (
      ordinal    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, -- creation order; never reused
      session_id text NOT NULL UNIQUE,
      cwd        text NOT NULL,
      created_at text NOT NULL,
      updated_at text NOT NULL,
      title      text,
      config     text,            -- JSON text
      last_seq   bigint NOT NULL DEFAULT 0  -- the row lock on it orders appends across replicas
    );
    CREATE TABLE ${s}.log_entries (
      session bigint NOT NULL REFERENCES ${s}.log_sessions(ordinal) ON DELETE CASCADE,
      seq     bigint NOT NULL,
      retain  boolean NOT NULL,
      body    text NOT NULL,       -- the session/update body as JSON text, replayed byte for byte
      PRIMARY KEY (session, seq)
    );
    -- Messages claimed by an append (per kind), and every message ID issued or claimed.
    CREATE TABLE ${s}.log_claims (
      session    bigint NOT NULL REFERENCES ${s}.log_sessions(ordinal) ON DELETE CASCADE,
      kind       text NOT NULL,
      message_id text NOT NULL,
      PRIMARY KEY (session, kind, message_id)
    );
    CREATE TABLE ${s}.log_issued_ids (
      session    bigint NOT NULL REFERENCES ${s}.log_sessions(ordinal) ON DELETE CASCADE,
      message_id text NOT NULL,
      PRIMARY KEY (session, message_id)
    );

    -- The clock of the database, not of one replica: updated_at never goes back across replicas.
    CREATE FUNCTION ${s}.log_now(p_previous text) RETURNS text LANGUAGE sql AS $fn$
      SELECT greatest(p_previous,
        to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
    $fn$;

    -- One append: numbers the entries after the session's last one (the row lock serializes
    -- appenders on every replica), claims messages (all or nothing), stores the entries and
    -- notifies listeners with the range on commit. Returns the first and last seq.
    CREATE FUNCTION ${s}.log_append(
      p_session text, p_bodies text[], p_retain boolean[], p_claim_kinds text[], p_claim_ids text[],
      p_channel text, p_origin text, OUT o_first bigint, OUT o_last bigint
    ) LANGUAGE plpgsql AS $fn$
    DECLARE v_ordinal bigint; v_n integer := cardinality(p_bodies);
    BEGIN
      UPDATE ${s}.log_sessions
        SET last_seq = last_seq + v_n, updated_at = ${s}.log_now(updated_at)
        WHERE session_id = p_session
        RETURNING ordinal, last_seq INTO v_ordinal, o_last;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.sessionNotFound}', MESSAGE = 'session not found';
      END IF;
      o_first := o_last - v_n + 1;
      FOR i IN 1 .. coalesce(cardinality(p_claim_ids), 0) LOOP
        INSERT INTO ${s}.log_claims (session, kind, message_id)
          VALUES (v_ordinal, p_claim_kinds[i], p_claim_ids[i]) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = '${RAISED.duplicateMessage}', MESSAGE = p_claim_ids[i],
            DETAIL = p_claim_kinds[i];
        END IF;
        INSERT INTO ${s}.log_issued_ids (session, message_id) VALUES (v_ordinal, p_claim_ids[i])
          ON CONFLICT DO NOTHING;
      END LOOP;
      INSERT INTO ${s}.log_entries (session, seq, retain, body)
        SELECT v_ordinal, o_first + t.ord - 1, t.retain, t.body
        FROM unnest(p_bodies, p_retain) WITH ORDINALITY AS t(body, retain, ord);
      -- Notifications are delivered on commit, in commit order; the rows are read from the table
      -- (a payload is limited to 8000 bytes), so the payload carries only the range and who
      -- appended (that process hands the entries to its own followers without a read).
      PERFORM pg_notify(p_channel, o_first || ' ' || o_last || ' ' || p_origin || ' ' ||
        CASE WHEN octet_length(p_session) <= 7000 THEN p_session ELSE '' END);
    END
    $fn$;
    `,
    // Version 3: session leases — which replica runs a session's foreground work, until when.
    `
    CREATE TABLE ${s}.log_leases (
      session_id text PRIMARY KEY,
      owner      text NOT NULL,
      epoch      bigint NOT NULL,       -- fencing token: grows at every change of owner
      expires_at timestamptz NOT NULL   -- the database's clock, never a replica's
    );
    `,
    // Version 4: appends fenced by the lease — only the current holder, at its epoch, may append.
    // The share lock on the lease row makes a takeover wait for the holder's append in flight;
    // after a takeover, an append at the old epoch fails.
    `
    CREATE FUNCTION ${s}.log_append_as(
      p_owner text, p_epoch bigint,
      p_session text, p_bodies text[], p_retain boolean[], p_claim_kinds text[], p_claim_ids text[],
      p_channel text, p_origin text, OUT o_first bigint, OUT o_last bigint
    ) LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM 1 FROM ${s}.log_leases
        WHERE session_id = p_session AND owner = p_owner AND epoch = p_epoch
          AND expires_at > clock_timestamp()
        FOR SHARE;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.leaseLost}', MESSAGE = 'the lease on the session is not held';
      END IF;
      SELECT a.o_first, a.o_last INTO o_first, o_last
        FROM ${s}.log_append(p_session, p_bodies, p_retain, p_claim_kinds, p_claim_ids, p_channel, p_origin) a;
    END
    $fn$;
    `,
    // Version 5: prompts forwarded between replicas — a replica that does not own a session has
    // its owner insert a prompt it received; the row carries the prompt there and the outcome back.
    `
    CREATE TABLE ${s}.log_prompts (
      id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      session_id  text NOT NULL,
      origin      text NOT NULL,          -- the replica whose client sent the prompt
      content     text NOT NULL,          -- the prompt's content blocks, JSON
      cancelled   boolean NOT NULL DEFAULT false,  -- a session/cancel arrived while it waited
      state       text NOT NULL DEFAULT 'pending'
                  CHECK (state IN ('pending', 'taken', 'inserted', 'rejected', 'withdrawn')),
      taken_by    text,                   -- the owner running it, at its lease epoch
      taken_epoch bigint,
      message_id  text,                   -- recorded right before the user message is appended
      position    bigint,                 -- a log position covering the inserted message's report
      error       text,                   -- the JSON-RPC error of a rejected prompt, JSON
      created_at  timestamptz NOT NULL DEFAULT clock_timestamp()
    );
    CREATE INDEX log_prompts_open ON ${s}.log_prompts (session_id) WHERE state IN ('pending', 'taken');
    `,
  ];
}

/** The tables each version adds, to tell a damaged schema from a current one. */
const TABLES_BY_VERSION: readonly (readonly string[])[] = [
  ['blocks', 'issued_ids', 'messages', 'schema_migrations', 'sessions'],
  ['log_claims', 'log_entries', 'log_issued_ids', 'log_sessions'],
  ['log_leases'],
  [],
  ['log_prompts'],
];

/** Checks a schema name and returns it quoted for SQL. Only plain lower-case identifiers are accepted. */
export function quoteSchema(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) {
    throw new HistoryStoreError(
      'invalid_argument',
      `/schema: expected a lower-case SQL identifier (letters, digits, _), got "${schema}"`,
      { pointer: '/schema' },
    );
  }
  return `"${schema}"`;
}

/**
 * Brings `schema` to {@link SCHEMA_VERSION} inside one transaction on `client`, serialized across
 * processes by an advisory lock. Refuses (without writing) a schema from a newer version, a schema
 * holding someone else's tables, and a half-present one; fails with `read_only` when the database
 * cannot be written. Returns the version found before migrating.
 */
export async function migrate(client: pg.ClientBase, schema: string, location: string): Promise<number> {
  const s = quoteSchema(schema);
  await client.query('BEGIN');
  try {
    const readOnly = await client.query<{ ro: string }>('SELECT current_setting($1) AS ro', [
      'transaction_read_only',
    ]);
    if (readOnly.rows[0]?.ro === 'on') {
      throw new HistoryStoreError('read_only', `${location}: the database is read-only`, { path: location });
    }
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`acp-kit history schema ${schema}`]);
    const tables = (
      await client.query<{ table_name: string }>(
        'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
        [schema],
      )
    ).rows.map((row) => row.table_name);
    let version = 0;
    if (tables.includes('schema_migrations')) {
      const found = await client.query<{ v: number | null }>(
        `SELECT max(version)::integer AS v FROM ${s}.schema_migrations`,
      );
      version = found.rows[0]?.v ?? 0;
    } else if (tables.length > 0) {
      throw new HistoryStoreError(
        'not_a_history_store',
        `${location}: schema "${schema}" holds other tables (${tables.join(', ')}); refusing to write to it`,
        { path: location },
      );
    }
    if (version > SCHEMA_VERSION) {
      throw new HistoryStoreError(
        'unsupported_version',
        `${location}: schema "${schema}" has history schema version ${version}; this version of @acp-kit/history-postgres reads up to ${SCHEMA_VERSION}`,
        { path: location },
      );
    }
    if (version > 0) {
      const missing = TABLES_BY_VERSION.slice(0, version)
        .flat()
        .filter((name) => !tables.includes(name));
      if (missing.length > 0) {
        throw new HistoryStoreError(
          'corrupt',
          `${location}: schema "${schema}" claims version ${version} but lacks ${missing.join(', ')}`,
          { path: location },
        );
      }
    }
    if (version === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
      await client.query(
        `CREATE TABLE ${s}.schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
    }
    const steps = migrations(s);
    for (let v = version; v < SCHEMA_VERSION; v++) {
      await client.query(steps[v]!);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [v + 1]);
    }
    const writable = await client.query<{ ok: boolean }>('SELECT has_table_privilege($1, $2) AS ok', [
      `${s}.sessions`,
      'INSERT, UPDATE, DELETE',
    ]);
    if (writable.rows[0]?.ok !== true) {
      throw new HistoryStoreError('read_only', `${location}: no write privilege on schema "${schema}"`, {
        path: location,
      });
    }
    await client.query('COMMIT');
    return version;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
