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
    // Version 6: the message-level history store becomes a view of the session log. The log keeps
    // an index of its retained messages (log_messages: order, kind, ID, replay preference — no
    // content) and links each retained entry that changes a message to it; the content is folded
    // from the entries when read. The version 1 tables move into the log (each message as entries
    // in its replay form, claimed, with its issued IDs) and are dropped.
    `
    ALTER TABLE ${s}.log_sessions ADD COLUMN message_count bigint NOT NULL DEFAULT 0;
    ALTER TABLE ${s}.log_entries ADD COLUMN message bigint;  -- the retained message it changes
    CREATE TABLE ${s}.log_messages (
      session    bigint NOT NULL REFERENCES ${s}.log_sessions(ordinal) ON DELETE CASCADE,
      ordinal    bigint NOT NULL,     -- 1, 2, … in the order the messages were first retained
      kind       text NOT NULL,
      message_id text NOT NULL,
      via        text NOT NULL CHECK (via IN ('full', 'chunks')),
      PRIMARY KEY (session, ordinal),
      UNIQUE (session, kind, message_id)
    );
    CREATE INDEX log_messages_by_id ON ${s}.log_messages (session, message_id);
    CREATE INDEX log_entries_by_message ON ${s}.log_entries (session, message, seq) WHERE message IS NOT NULL;

    -- Links one retained message change to its message, opening the message when it is new.
    -- p_chunk: the change is a chunk; p_empty: an upsert without content; p_via: the replay
    -- preference asked for (message-level API), NULL for the default.
    CREATE FUNCTION ${s}.log_link(p_session bigint, p_kind text, p_message_id text, p_chunk boolean,
      p_empty boolean, p_via text) RETURNS bigint LANGUAGE plpgsql AS $fn$
    DECLARE v_m bigint;
    BEGIN
      SELECT ordinal INTO v_m FROM ${s}.log_messages
        WHERE session = p_session AND kind = p_kind AND message_id = p_message_id;
      IF NOT FOUND THEN
        UPDATE ${s}.log_sessions SET message_count = message_count + 1 WHERE ordinal = p_session
          RETURNING message_count INTO v_m;
        INSERT INTO ${s}.log_messages (session, ordinal, kind, message_id, via) VALUES (p_session, v_m,
          p_kind, p_message_id, CASE WHEN p_chunk THEN 'chunks'
            ELSE coalesce(p_via, CASE WHEN p_empty THEN 'chunks' ELSE 'full' END) END);
      ELSIF p_via IS NOT NULL AND NOT p_chunk THEN
        UPDATE ${s}.log_messages SET via = p_via WHERE session = p_session AND ordinal = v_m;
      END IF;
      RETURN v_m;
    END
    $fn$;

    -- The session log's existing retained message changes, linked in log order.
    DO $mig$
    DECLARE r record; v_tag text; v_kind text; v_chunk boolean;
    BEGIN
      FOR r IN SELECT session, seq, body::json AS b FROM ${s}.log_entries WHERE retain ORDER BY session, seq LOOP
        v_tag := r.b ->> 'sessionUpdate';
        CONTINUE WHEN json_typeof(r.b -> 'messageId') IS DISTINCT FROM 'string';
        v_chunk := v_tag IN ('user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk');
        CONTINUE WHEN NOT v_chunk AND v_tag NOT IN ('user_message', 'agent_message', 'agent_thought');
        CONTINUE WHEN v_chunk AND json_typeof(r.b -> 'content') IS DISTINCT FROM 'object';
        v_kind := CASE WHEN v_chunk THEN left(v_tag, -6) ELSE v_tag END;
        UPDATE ${s}.log_entries SET message = ${s}.log_link(r.session, v_kind, r.b ->> 'messageId', v_chunk,
            json_typeof(r.b -> 'content') IS DISTINCT FROM 'array' OR json_array_length(r.b -> 'content') = 0, NULL)
          WHERE session = r.session AND seq = r.seq;
      END LOOP;
    END
    $mig$;

    -- The version 1 store's sessions, in creation order, become log sessions.
    DO $mig$
    DECLARE o record; m record; v_new bigint; v_seq bigint; v_head text; v_meta text; v_blocks text[];
    BEGIN
      FOR o IN SELECT * FROM ${s}.sessions ORDER BY ordinal LOOP
        IF EXISTS (SELECT 1 FROM ${s}.log_sessions WHERE session_id = o.session_id) THEN
          RAISE EXCEPTION 'session "%" is in both the history store and the session log tables; move one of them to another schema first', o.session_id;
        END IF;
        INSERT INTO ${s}.log_sessions (session_id, cwd, created_at, updated_at)
          VALUES (o.session_id, o.cwd, o.created_at, o.created_at) RETURNING ordinal INTO v_new;
        v_seq := 0;
        FOR m IN SELECT * FROM ${s}.messages WHERE session = o.ordinal ORDER BY seq LOOP
          SELECT coalesce(array_agg(block ORDER BY idx), '{}') INTO v_blocks FROM ${s}.blocks
            WHERE session = o.ordinal AND seq = m.seq;
          v_head := '{"sessionUpdate":' || to_json(m.kind)::text || ',"messageId":' || to_json(m.message_id)::text;
          v_meta := CASE WHEN m.meta IS NULL THEN '' ELSE ',"_meta":' || m.meta END;
          INSERT INTO ${s}.log_messages (session, ordinal, kind, message_id, via)
            VALUES (v_new, m.seq, m.kind, m.message_id, m.via);
          INSERT INTO ${s}.log_claims (session, kind, message_id) VALUES (v_new, m.kind, m.message_id);
          IF m.via = 'full' THEN
            v_seq := v_seq + 1;
            INSERT INTO ${s}.log_entries (session, seq, retain, body, message) VALUES (v_new, v_seq, true,
              v_head || ',"content":[' || array_to_string(v_blocks, ',') || ']' || v_meta || '}', m.seq);
          ELSE
            v_seq := v_seq + 1;
            INSERT INTO ${s}.log_entries (session, seq, retain, body, message)
              VALUES (v_new, v_seq, true, v_head || ',"content":[]' || v_meta || '}', m.seq);
            INSERT INTO ${s}.log_entries (session, seq, retain, body, message)
              SELECT v_new, v_seq + t.ord, true, '{"sessionUpdate":' || to_json(m.kind || '_chunk')::text ||
                ',"messageId":' || to_json(m.message_id)::text || ',"content":' || t.block || '}', m.seq
              FROM unnest(v_blocks) WITH ORDINALITY AS t(block, ord);
            v_seq := v_seq + cardinality(v_blocks);
          END IF;
        END LOOP;
        INSERT INTO ${s}.log_issued_ids (session, message_id)
          SELECT v_new, message_id FROM ${s}.issued_ids WHERE session = o.ordinal;
        UPDATE ${s}.log_sessions SET last_seq = v_seq,
            message_count = (SELECT count(*) FROM ${s}.messages WHERE session = o.ordinal)
          WHERE ordinal = v_new;
      END LOOP;
    END
    $mig$;
    DROP FUNCTION ${s}.append_chunk, ${s}.replace_content, ${s}.lock_message, ${s}.append_message;
    DROP TABLE ${s}.blocks, ${s}.messages, ${s}.issued_ids, ${s}.sessions;

    -- Appends link their retained message changes (p_msg_*: per entry, kind NULL for an entry that
    -- changes no retained message) and report how many messages the session has retained.
    DROP FUNCTION ${s}.log_append_as;
    DROP FUNCTION ${s}.log_append;
    CREATE FUNCTION ${s}.log_append(
      p_session text, p_bodies text[], p_retain boolean[], p_claim_kinds text[], p_claim_ids text[],
      p_channel text, p_origin text, p_msg_kinds text[], p_msg_ids text[], p_msg_chunk boolean[],
      p_msg_empty boolean[], p_via text, OUT o_first bigint, OUT o_last bigint, OUT o_messages bigint
    ) LANGUAGE plpgsql AS $fn$
    DECLARE v_ordinal bigint; v_n integer := cardinality(p_bodies); v_links bigint[];
      v_kind text; v_id text; v_m bigint;
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
      v_links := array_fill(NULL::bigint, ARRAY[v_n]);
      FOR i IN 1 .. v_n LOOP
        CONTINUE WHEN p_msg_kinds[i] IS NULL;
        -- Chunks of the message linked just before need no lookup.
        IF p_msg_chunk[i] AND v_kind = p_msg_kinds[i] AND v_id = p_msg_ids[i] THEN
          v_links[i] := v_m;
          CONTINUE;
        END IF;
        v_kind := p_msg_kinds[i];
        v_id := p_msg_ids[i];
        v_m := ${s}.log_link(v_ordinal, v_kind, v_id, p_msg_chunk[i], p_msg_empty[i], p_via);
        v_links[i] := v_m;
      END LOOP;
      INSERT INTO ${s}.log_entries (session, seq, retain, body, message)
        SELECT v_ordinal, o_first + t.ord - 1, t.retain, t.body, v_links[t.ord]
        FROM unnest(p_bodies, p_retain) WITH ORDINALITY AS t(body, retain, ord);
      SELECT message_count INTO o_messages FROM ${s}.log_sessions WHERE ordinal = v_ordinal;
      PERFORM pg_notify(p_channel, o_first || ' ' || o_last || ' ' || p_origin || ' ' ||
        CASE WHEN octet_length(p_session) <= 7000 THEN p_session ELSE '' END);
    END
    $fn$;
    CREATE FUNCTION ${s}.log_append_as(
      p_owner text, p_epoch bigint,
      p_session text, p_bodies text[], p_retain boolean[], p_claim_kinds text[], p_claim_ids text[],
      p_channel text, p_origin text, p_msg_kinds text[], p_msg_ids text[], p_msg_chunk boolean[],
      p_msg_empty boolean[], p_via text, OUT o_first bigint, OUT o_last bigint, OUT o_messages bigint
    ) LANGUAGE plpgsql AS $fn$
    BEGIN
      PERFORM 1 FROM ${s}.log_leases
        WHERE session_id = p_session AND owner = p_owner AND epoch = p_epoch
          AND expires_at > clock_timestamp()
        FOR SHARE;
      IF NOT FOUND THEN
        RAISE EXCEPTION USING ERRCODE = '${RAISED.leaseLost}', MESSAGE = 'the lease on the session is not held';
      END IF;
      SELECT a.o_first, a.o_last, a.o_messages INTO o_first, o_last, o_messages
        FROM ${s}.log_append(p_session, p_bodies, p_retain, p_claim_kinds, p_claim_ids, p_channel, p_origin,
          p_msg_kinds, p_msg_ids, p_msg_chunk, p_msg_empty, p_via) a;
    END
    $fn$;
    `,
    // Version 7: group commit — one call writes the appends queued for several sessions, so
    // sessions appending at once share a round trip, a transaction and a commit. Each session's
    // appends are written in their order, fenced by the lease when they are; sessions are taken in
    // one fixed order (by ID, byte order) so two calls can never wait on each other's row locks.
    // p_starts/p_counts slice the entry arrays per session (1-based), p_claim_starts/p_claim_counts
    // the claim arrays; p_owners/p_epochs are NULL for an unfenced append. Returns one row per
    // session: its index in p_sessions, the appended range and its retained message count.
    `
    DROP FUNCTION ${s}.log_append_as;
    DROP FUNCTION ${s}.log_append;
    CREATE FUNCTION ${s}.log_write(
      p_sessions text[], p_owners text[], p_epochs bigint[], p_vias text[],
      p_starts integer[], p_counts integer[], p_claim_starts integer[], p_claim_counts integer[],
      p_bodies text[], p_retain boolean[], p_claim_kinds text[], p_claim_ids text[],
      p_msg_kinds text[], p_msg_ids text[], p_msg_chunk boolean[], p_msg_empty boolean[],
      p_channel text, p_origin text
    ) RETURNS TABLE (o_index integer, o_first bigint, o_last bigint, o_messages bigint)
    LANGUAGE plpgsql AS $fn$
    DECLARE g record; v_ordinal bigint; v_n integer; v_start integer; v_links bigint[];
      v_kind text; v_id text; v_m bigint; v_count bigint; v_opened boolean; v_chunk boolean;
      v_via text;
    BEGIN
      v_links := array_fill(NULL::bigint, ARRAY[coalesce(cardinality(p_bodies), 0)]);
      FOR g IN SELECT t.i::integer AS i FROM unnest(p_sessions) WITH ORDINALITY AS t(session_id, i)
               ORDER BY t.session_id COLLATE "C" LOOP
        o_index := g.i;
        v_n := p_counts[g.i];
        v_start := p_starts[g.i];
        v_via := p_vias[g.i];
        IF p_owners[g.i] IS NOT NULL THEN
          -- The share lock makes a takeover wait for this write; a lapsed or taken lease refuses it.
          PERFORM 1 FROM ${s}.log_leases
            WHERE session_id = p_sessions[g.i] AND owner = p_owners[g.i] AND epoch = p_epochs[g.i]
              AND expires_at > clock_timestamp()
            FOR SHARE;
          IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = '${RAISED.leaseLost}', MESSAGE = 'the lease on the session is not held';
          END IF;
        END IF;
        -- The row lock on the session numbers its entries after its last one, on every replica.
        UPDATE ${s}.log_sessions
          SET last_seq = last_seq + v_n, updated_at = ${s}.log_now(updated_at)
          WHERE session_id = p_sessions[g.i]
          RETURNING ordinal, last_seq, message_count INTO v_ordinal, o_last, v_count;
        IF NOT FOUND THEN
          RAISE EXCEPTION USING ERRCODE = '${RAISED.sessionNotFound}', MESSAGE = 'session not found';
        END IF;
        o_first := o_last - v_n + 1;
        FOR i IN p_claim_starts[g.i] .. p_claim_starts[g.i] + p_claim_counts[g.i] - 1 LOOP
          INSERT INTO ${s}.log_claims (session, kind, message_id)
            VALUES (v_ordinal, p_claim_kinds[i], p_claim_ids[i]) ON CONFLICT DO NOTHING;
          IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = '${RAISED.duplicateMessage}', MESSAGE = p_claim_ids[i],
              DETAIL = p_claim_kinds[i];
          END IF;
          INSERT INTO ${s}.log_issued_ids (session, message_id) VALUES (v_ordinal, p_claim_ids[i])
            ON CONFLICT DO NOTHING;
        END LOOP;
        -- Each retained entry that changes a message is linked to it, opening the message when new.
        v_kind := NULL;
        v_id := NULL;
        v_opened := false;
        FOR i IN v_start .. v_start + v_n - 1 LOOP
          CONTINUE WHEN p_msg_kinds[i] IS NULL;
          v_chunk := p_msg_chunk[i];
          -- Chunks of the message linked just before need no lookup.
          IF v_chunk AND v_kind = p_msg_kinds[i] AND v_id = p_msg_ids[i] THEN
            v_links[i] := v_m;
            CONTINUE;
          END IF;
          v_kind := p_msg_kinds[i];
          v_id := p_msg_ids[i];
          SELECT ordinal INTO v_m FROM ${s}.log_messages
            WHERE session = v_ordinal AND kind = v_kind AND message_id = v_id;
          IF NOT FOUND THEN
            v_count := v_count + 1;
            v_m := v_count;
            v_opened := true;
            INSERT INTO ${s}.log_messages (session, ordinal, kind, message_id, via) VALUES (v_ordinal, v_m,
              v_kind, v_id, CASE WHEN v_chunk THEN 'chunks'
                ELSE coalesce(v_via, CASE WHEN p_msg_empty[i] THEN 'chunks' ELSE 'full' END) END);
          ELSIF v_via IS NOT NULL AND NOT v_chunk THEN
            UPDATE ${s}.log_messages SET via = v_via WHERE session = v_ordinal AND ordinal = v_m;
          END IF;
          v_links[i] := v_m;
        END LOOP;
        IF v_opened THEN
          UPDATE ${s}.log_sessions SET message_count = v_count WHERE ordinal = v_ordinal;
        END IF;
        o_messages := v_count;
        INSERT INTO ${s}.log_entries (session, seq, retain, body, message)
          SELECT v_ordinal, o_first + (k - v_start), p_retain[k], p_bodies[k], v_links[k]
          FROM generate_series(v_start, v_start + v_n - 1) AS k;
        -- Delivered on commit, in commit order; the payload carries the range, not the entries.
        PERFORM pg_notify(p_channel, o_first || ' ' || o_last || ' ' || p_origin || ' ' ||
          CASE WHEN octet_length(p_sessions[g.i]) <= 7000 THEN p_sessions[g.i] ELSE '' END);
        RETURN NEXT;
      END LOOP;
    END
    $fn$;
    `,
  ];
}

/** The tables each version adds and drops, to tell a damaged schema from a current one. */
const TABLES_BY_VERSION: readonly { readonly adds: readonly string[]; readonly drops?: readonly string[] }[] =
  [
    { adds: ['blocks', 'issued_ids', 'messages', 'schema_migrations', 'sessions'] },
    { adds: ['log_claims', 'log_entries', 'log_issued_ids', 'log_sessions'] },
    { adds: ['log_leases'] },
    { adds: [] },
    { adds: ['log_prompts'] },
    { adds: ['log_messages'], drops: ['blocks', 'issued_ids', 'messages', 'sessions'] },
    { adds: [] },
  ];

/** The tables a schema at `version` has. */
function tablesAt(version: number): Set<string> {
  const tables = new Set<string>();
  for (const step of TABLES_BY_VERSION.slice(0, version)) {
    for (const name of step.adds) tables.add(name);
    for (const name of step.drops ?? []) tables.delete(name);
  }
  return tables;
}

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
export async function migrate(
  client: pg.ClientBase,
  schema: string,
  location: string,
  /** Stop at this version (tests that build an older schema); default the current one. */
  target: number = SCHEMA_VERSION,
): Promise<number> {
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
      const missing = [...tablesAt(version)].filter((name) => !tables.includes(name));
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
    for (let v = version; v < target; v++) {
      await client.query(steps[v]!);
      await client.query(`INSERT INTO ${s}.schema_migrations (version) VALUES ($1)`, [v + 1]);
    }
    const writable = await client.query<{ ok: boolean }>('SELECT has_table_privilege($1, $2) AS ok', [
      `${s}.schema_migrations`,
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
