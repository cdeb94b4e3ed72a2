// Test kits for implementations of the SDK's seams: run them from your own test runner.
export {
  type ContractTestApi,
  describeSessionLogContract,
  type SessionLogContractHooks,
  type SessionLogContractOptions,
} from './session-log-contract.js';
