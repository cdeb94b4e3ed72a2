// The shared contract suite lives with the interface in @acp-kit/sdk's tests (not published); the
// memory and SQLite stores run the same one.
import { describeHistoryStoreContract } from '../../sdk/test/history/contract.js';
import { PostgresHistoryStore } from '../src/index.js';
import { openFresh, postgresUrl } from './helpers.js';

describeHistoryStoreContract('PostgresHistoryStore', {
  makeStore: (options) => openFresh(options),
  reopen: async (store, options) => {
    const { schema } = store as PostgresHistoryStore;
    await store.close();
    return PostgresHistoryStore.open(postgresUrl(), { schema, maxConnections: 4, ...options });
  },
});
