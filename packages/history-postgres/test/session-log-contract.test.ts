import { describeSessionLogContract } from '@acp-kit/sdk/testing';
import { describe, it } from 'vitest';
import { PostgresSessionLog } from '../src/index.js';
import { freshSchema, postgresUrl } from './helpers.js';

// The SessionLog contract suite published by @acp-kit/sdk/testing: the memory and SQLite logs run
// the same one.
describeSessionLogContract(
  'PostgresSessionLog',
  {
    makeLog: (options) =>
      PostgresSessionLog.open(postgresUrl(), { schema: freshSchema('log'), maxConnections: 4, ...options }),
    reopen: async (log, options) => {
      const { schema } = log as PostgresSessionLog;
      await log.close();
      return PostgresSessionLog.open(postgresUrl(), { schema, maxConnections: 4, ...options });
    },
  },
  { describe, it },
);
