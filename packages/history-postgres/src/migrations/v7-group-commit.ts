import { RAISED } from '../raised-sqlstates.js';
import type { Migration } from './migration.js';

/**
 * Version 7: group commit — one call writes the appends queued for several sessions, so
 * sessions appending at once share a round trip, a transaction and a commit. Each session's
 * appends are written in their order, fenced by the lease when they are; sessions are taken in
 * one fixed order (by ID, byte order) so two calls can never wait on each other's row locks.
 * p_starts/p_counts slice the entry arrays per session (1-based), p_claim_starts/p_claim_counts
 * the claim arrays; p_owners/p_epochs are NULL for an unfenced append. Returns one row per
 * session: its index in p_sessions, the appended range and its retained message count.
 */
export const V7_GROUP_COMMIT: Migration = {
  adds: [],
  sql: (s) => `
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
};
