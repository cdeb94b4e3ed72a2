import { MemoryHistoryStore } from '../../src/history/index.js';
import { describeHistoryStoreContract } from './contract.js';

describeHistoryStoreContract('MemoryHistoryStore', (options) => new MemoryHistoryStore(options));
