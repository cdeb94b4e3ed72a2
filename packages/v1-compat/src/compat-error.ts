/** A value that has no form on the other protocol version. */
export class CompatError extends Error {
  /** RFC 6901 pointer to the offending part, relative to the value being converted. */
  readonly pointer: string;

  constructor(message: string, pointer = '') {
    super(message);
    this.name = 'CompatError';
    this.pointer = pointer;
  }
}
