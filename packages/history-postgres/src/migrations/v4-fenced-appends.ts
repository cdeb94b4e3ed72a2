import { RAISED } from '../raised-sqlstates.js';
import type { Migration } from './migration.js';

/**
 * Version 4: appends fenced by the lease — only the current holder, at its epoch, may append.
 * The share lock on the lease row makes a takeover wait for the holder's append in flight;
 * after a takeover, an append at the old epoch fails.
 */
export const V4_FENCED_APPENDS: Migration = {
  adds: [],
  sql: (s) => `
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
};
