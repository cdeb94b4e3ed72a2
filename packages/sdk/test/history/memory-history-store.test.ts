import { MemoryHistoryStore } from '../../src/history/index.js';
import { describeHistoryStoreContract } from './contract.js';

describeHistoryStoreContract('MemoryHistoryStore', {
  makeStore: (options) => new MemoryHistoryStore(options),
});
