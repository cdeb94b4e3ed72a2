import { describe, it } from 'vitest';
import { MemorySessionLog } from '../../src/history/index.js';
import { describeSessionLogContract } from '../../src/testing/index.js';

describeSessionLogContract(
  'MemorySessionLog',
  { makeLog: (options) => new MemorySessionLog(options) },
  { describe, it },
);
