import type { Transport } from '@acp-kit/sdk';
import type { MessageReaderListener } from '@acp-kit/sdk/adapter';

/** A transport whose frames are handed over in memory (see {@link messageTransport}). */
export interface MessageTransport {
  /** The transport, to build a connection on. */
  readonly transport: Transport;
  /** Hands one frame to the connection reading the transport. */
  push(text: string): void;
  /** Ends the incoming side (the connection closes with `reason`). */
  end(reason?: Error): void;
}

/**
 * A transport with no bytes underneath: what the connection writes goes to `write`, and frames
 * pushed with {@link MessageTransport.push} are what it reads. Used where a bridge runs inside a
 * codec, between two connections of the same process.
 */
export function messageTransport(write: (text: string) => Promise<void>): MessageTransport {
  let listener: MessageReaderListener | undefined;
  const early: string[] = [];
  let ended: { reason: Error | undefined } | undefined;
  return {
    transport: {
      reader: {
        listen(next) {
          listener = next;
          for (const text of early.splice(0)) next.onMessage(text);
          if (ended) next.onClose(ended.reason);
        },
        dispose: () => {
          listener = undefined;
        },
      },
      writer: { write, close: () => Promise.resolve() },
    },
    push(text) {
      if (ended) return;
      if (listener) listener.onMessage(text);
      else early.push(text);
    },
    end(reason) {
      if (ended) return;
      ended = { reason };
      listener?.onClose(reason);
    },
  };
}
