import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeSessionLogContract } from '@acp-kit/sdk/testing';
import { afterAll, describe, it } from 'vitest';
import { SqliteHistoryStore, SqliteSessionLog } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'acp-session-log-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeSessionLogContract(
  'SqliteSessionLog',
  {
    makeLog: (options) => SqliteSessionLog.open(join(dir, `log-${++n}.sqlite`), options),
    reopen: async (log, options) => {
      const path = (log as SqliteSessionLog).path;
      await log.close();
      return SqliteSessionLog.open(path, options);
    },
  },
  { describe, it },
);

describeSessionLogContract(
  'SqliteHistoryStore.log',
  { makeLog: (options) => SqliteHistoryStore.open(join(dir, `store-${++n}.sqlite`), options).log },
  { describe, it },
);
