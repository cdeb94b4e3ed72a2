import * as historyValidation from './validate.js';

/**
 * The argument checks every `HistoryStore` implementation shares, so that each one rejects the
 * same inputs with the same error code and JSON pointer. For authors of a new history store.
 */
export { historyValidation };
