/** SQLSTATEs raised by this package's functions, mapped to history store errors by the store. */
export const RAISED = {
  sessionNotFound: 'AK001',
  duplicateMessage: 'AK002',
  ambiguousTarget: 'AK003',
  messageNotFound: 'AK004',
  leaseLost: 'AK005',
} as const;
