import { RAISED } from '../raised-sqlstates.js';
import type { Migration } from './migration.js';

/**
 * Version 6: the message-level history store becomes a view of the session log. The log keeps
 * an index of its retained messages (log_messages: order, kind, ID, replay preference — no
 * content) and links each retained entry that changes a message to it; the content is folded
 * from the entries when read. The version 1 tables move into the log (each message as entries
 * in its replay form, claimed, with its issued IDs) and are dropped. One step in three parts:
 * the index, the move of the version 1 store, and appends that link what they change.
 */
export const V6_MESSAGE_INDEX: Migration = {
  adds: ['log_messages'],
  drops: ['blocks', 'issued_ids', 'messages', 'sessions'],
  sql: (s) => `
${messageIndex(s)}
${moveHistoryStore(s)}
${linkingAppends(s)}
    `,
};

/** The index of retained messages, and the log's retained entries linked to it. */
function messageIndex(s: string): string {
  return `
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
    `;
}

/** The version 1 store's sessions and messages, moved into the log; its tables dropped. */
function moveHistoryStore(s: string): string {
  return `
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
    `;
}

/** Appends (plain and fenced) that link the retained message changes they write. */
function linkingAppends(s: string): string {
  return `
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
    `;
}
