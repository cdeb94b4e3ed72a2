import type { Migration } from './migration.js';

/**
 * Version 5: prompts forwarded between replicas — a replica that does not own a session has
 * its owner insert a prompt it received; the row carries the prompt there and the outcome back.
 */
export const V5_FORWARDED_PROMPTS: Migration = {
  adds: ['log_prompts'],
  sql: (s) => `
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
};
