/**
 * What a proxy checks in its successor's `initialize` result before it answers its own
 * initialization with it: that it is an InitializeResponse, and that the proxy's shaping kept its
 * `protocolVersion`. Either failure is -32603 with what was wrong.
 */
import { type InitializeResponse, validate } from '@acp-kit/schema';
import { ErrorCodes, RpcError } from '../rpc/errors.js';

/** `result` as an InitializeResponse; throws -32603 at the first pointer where it is not one. */
export function checkedInitializeResult(result: unknown): InitializeResponse {
  const checked = validate('InitializeResponse', result);
  if (checked.ok) return result as InitializeResponse;
  const first = checked.issues[0];
  const pointer = `/result${first?.pointer ?? ''}`;
  const expected = first?.expected ?? first?.message ?? 'an InitializeResponse';
  throw new RpcError(
    ErrorCodes.InternalError,
    `the successor's initialize result is not an InitializeResponse at ${pointer}: expected ${expected}`,
    {
      pointer,
      expected,
      issues: checked.issues.map((i) => ({ ...i, pointer: `/result${i.pointer}` })),
    },
  );
}

/** Throws -32603 when the proxy's answer changed the successor's `protocolVersion`. */
export function checkProtocolVersionKept(received: InitializeResponse, answer: InitializeResponse): void {
  if (answer.protocolVersion === received.protocolVersion) return;
  throw new RpcError(
    ErrorCodes.InternalError,
    `the proxy changed protocolVersion from ${received.protocolVersion} to ${answer.protocolVersion}; a proxy must keep its successor's`,
  );
}
