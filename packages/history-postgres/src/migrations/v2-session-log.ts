import { RAISED } from '../raised-sqlstates.js';
import type { Migration } from './migration.js';

/**
 * Version 2: the session log (SessionLog) — a directory of sessions and, per session, one
 * append-only, numbered log of session/update bodies, with message claims and issued IDs.
 */
export const V2_SESSION_LOG: Migration = {
  adds: ['log_claims', 'log_entries', 'log_issued_ids', 'log_sessions'],
  sql: (s) => `
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
};
