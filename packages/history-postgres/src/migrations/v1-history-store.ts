import { RAISED } from '../raised-sqlstates.js';
import type { Migration } from './migration.js';

/**
 * Version 1: the message-level history store (sessions, messages, their blocks, issued IDs), each
 * write one function call.
 */
export const V1_HISTORY_STORE: Migration = {
  adds: ['blocks', 'issued_ids', 'messages', 'schema_migrations', 'sessions'],
  sql: (s) => `
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
};
