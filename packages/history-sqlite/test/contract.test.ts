import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
// The shared contract suite lives with the interface in @acp-kit/sdk's tests (not published).
import { describeHistoryStoreContract } from '../../sdk/test/history/contract.js';
import { SqliteHistoryStore } from '../src/index.js';

const dir = mkdtempSync(join(tmpdir(), 'acp-history-contract-'));
let n = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describeHistoryStoreContract('SqliteHistoryStore', {
  makeStore: (options) => SqliteHistoryStore.open(join(dir, `store-${++n}.sqlite`), options),
  reopen: async (store, options) => {
    const path = (store as SqliteHistoryStore).path;
    await store.close();
    return SqliteHistoryStore.open(path, options);
  },
});
