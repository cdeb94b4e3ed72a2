/**
 * One direction of a relay (a proxy or the conductor), kept in order. A relay reads messages on a
 * source connection and writes what they cause on a target connection: a notification or request
 * it forwards, or — for the response to a request it forwarded on behalf of a target request — the
 * answer to that target request, which the target's connection writes a few microtasks after the
 * handler returns. Without an order, a notification read right behind such a response overtook the
 * answer (a prompt's answer and its `idle` read in one chunk left the relay reversed), and an
 * answer overtook a notification read before its response (a close's answer before the `idle`).
 *
 * Every message read from the source that the relay forwards, and every response to a request sent
 * through {@link ArrivalOrder.request}, takes a place in one queue, in reading order. A forwarded
 * message is written once everything before it was. A response is handed to its handler only when
 * its place is first in the queue, and the place is freed when the target writes the answer (or a
 * macrotask after the handler returned, for an answer the connection holds back, such as one in a
 * batch). A place held longer than {@link HOLD_MS} (an interceptor that works long on an answer,
 * or waits for a later message) lets the rest pass, so the order can never stall a relay.
 */
import type { Connection } from '../rpc/connection.js';
import type { RpcId } from '../rpc/messages.js';

/** How long one place may hold back what was read after it. */
export const HOLD_MS = 1_000;

interface AnswerPlace {
  readonly kind: 'answer';
  readonly target: RpcId;
  free: boolean;
  /** Hands the response to its handler; set while the handler waits for the place's turn. */
  turn: (() => void) | undefined;
}

interface MessagePlace {
  readonly kind: 'message';
  run: (() => void) | undefined;
  skipped: boolean;
}

type Place = AnswerPlace | MessagePlace;

/** A message read from the source, being handled: what the relay writes for it waits for its turn. */
export interface ArrivalTicket {
  /** Runs `send` once everything read before this message was written; resolves with its result. */
  send<T>(send: () => Promise<T>): Promise<T>;
  /** Nothing (more) is written for this message: what waits behind it may go. Idempotent. */
  skip(): void;
}

const UNORDERED: ArrivalTicket = { send: (send) => send(), skip: () => {} };

type Message = { method?: unknown; id?: unknown };

const isId = (id: unknown): id is RpcId => typeof id === 'number' || typeof id === 'string';

/** See the module comment. */
export class ArrivalOrder {
  readonly #places: Place[] = [];
  /** The place of the message being dispatched, until its handler claims it. */
  #unclaimed: MessagePlace | undefined;
  /** Requests sent on the source on behalf of a target request: source id → target id. */
  readonly #awaiting = new Map<RpcId, RpcId>();
  /** Target requests with a request in flight for them and no answer written yet. */
  readonly #open = new Set<RpcId>();
  /** The place of each response read and not yet handed to its handler, by source id. */
  readonly #responses = new Map<RpcId, AnswerPlace>();
  /** The places of the responses each target request's answer is built from. */
  readonly #answers = new Map<RpcId, AnswerPlace[]>();
  #capturing = false;
  #capturedId: RpcId | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #held: Place | undefined;
  #closed = false;

  /**
   * `forwards` tells which messages read on `source` the relay forwards to `target` (their
   * handlers claim a ticket with {@link claim}); responses are tracked through {@link request}.
   */
  constructor(source: Connection, target: Connection, forwards: (method: string) => boolean) {
    source.onMessage((direction, message) => {
      if (direction === 'in') this.#read(message as Message, forwards);
      else if (this.#capturing) this.#sent(message as Message);
    });
    target.onMessage((direction, message) => {
      if (direction === 'out') this.#written(message as Message);
    });
    source.onClose(() => this.#close());
    target.onClose(() => this.#close());
  }

  /**
   * The ticket of the message being dispatched on the source (call it first thing in its handler,
   * which the connection calls synchronously). A message that took no place gets a ticket that
   * sends at once.
   */
  claim(): ArrivalTicket {
    const place = this.#unclaimed;
    this.#unclaimed = undefined;
    if (place === undefined) return UNORDERED;
    let done = false;
    return {
      send: <T>(send: () => Promise<T>): Promise<T> => {
        if (done || !this.#places.includes(place)) return send();
        done = true;
        return new Promise<T>((resolve, reject) => {
          place.run = () => {
            try {
              send().then(resolve, reject);
            } catch (error) {
              reject(error);
            }
          };
          this.#flush();
        });
      },
      skip: () => {
        if (done) return;
        done = true;
        place.skipped = true;
        this.#flush();
      },
    };
  }

  /**
   * Sends a request on the source (`send` must send exactly one, synchronously) on behalf of the
   * target request `onBehalfOf`. Its response (result or error) is handed over when its place comes
   * first, and holds back what was read after it until the answer to `onBehalfOf` is written.
   */
  request<T>(onBehalfOf: RpcId, send: () => Promise<T>): Promise<T> {
    this.#capturing = true;
    this.#capturedId = undefined;
    let sent: Promise<T>;
    try {
      sent = send();
    } finally {
      this.#capturing = false;
    }
    const id = this.#capturedId;
    if (id === undefined || this.#closed) return sent;
    this.#awaiting.set(id, onBehalfOf);
    this.#open.add(onBehalfOf);
    // A request withdrawn (cancelled) settles without a response: one read later takes no place.
    return sent.then(
      (value) => {
        this.#awaiting.delete(id);
        return this.#turnOf(id).then(() => value);
      },
      (error: unknown) => {
        this.#awaiting.delete(id);
        return this.#turnOf(id).then(() => Promise.reject(error));
      },
    );
  }

  /**
   * The handler of target request `id` returned: its answer is with the target's connection, which
   * writes it within microtasks (or later, with the rest of a batch). The places it held are freed a
   * macrotask later if its write was not seen by then.
   */
  settled(id: RpcId): void {
    if (!this.#open.has(id)) return;
    setImmediate(() => this.#free(id));
  }

  #sent(message: Message): void {
    if (typeof message.method === 'string' && isId(message.id)) this.#capturedId = message.id;
  }

  #read(message: Message, forwards: (method: string) => boolean): void {
    if (this.#closed) return;
    if (this.#unclaimed !== undefined) this.#skipUnclaimed();
    if (typeof message.method === 'string') {
      if (!forwards(message.method)) return;
      const place: MessagePlace = { kind: 'message', run: undefined, skipped: false };
      this.#push(place);
      this.#unclaimed = place;
      // Its handler did not claim it (refused, invalid, or handled by the connection itself).
      queueMicrotask(() => {
        if (this.#unclaimed === place) this.#skipUnclaimed();
      });
      return;
    }
    if (!isId(message.id)) return;
    const target = this.#awaiting.get(message.id);
    if (target === undefined || !this.#open.has(target)) return;
    this.#awaiting.delete(message.id);
    const place: AnswerPlace = { kind: 'answer', target, free: false, turn: undefined };
    this.#responses.set(message.id, place);
    const list = this.#answers.get(target);
    if (list === undefined) this.#answers.set(target, [place]);
    else list.push(place);
    this.#push(place);
  }

  /** Resolves when the place of the response to source request `id` is first (or gone). */
  #turnOf(id: RpcId): Promise<void> {
    const place = this.#responses.get(id);
    this.#responses.delete(id);
    if (place === undefined || place.free || this.#places[0] === place || !this.#places.includes(place)) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      place.turn = resolve;
    });
  }

  /** Queues a place; one behind a held place starts the timer that bounds the hold. */
  #push(place: Place): void {
    this.#places.push(place);
    if (this.#places.length > 1) this.#holdFor(this.#places[0]);
  }

  #skipUnclaimed(): void {
    const place = this.#unclaimed!;
    this.#unclaimed = undefined;
    place.skipped = true;
    this.#flush();
  }

  /** The target wrote a message: an answer frees the places of the responses it was built from. */
  #written(message: Message): void {
    if (typeof message.method === 'string' || !isId(message.id)) return;
    // The target's connection reports a message just before it hands it to its writer: what was
    // waiting goes once that write call has returned.
    const id = message.id;
    if (this.#open.has(id)) queueMicrotask(() => this.#free(id));
  }

  #free(target: RpcId): void {
    this.#open.delete(target);
    const places = this.#answers.get(target);
    if (places === undefined) return;
    this.#answers.delete(target);
    for (const place of places) {
      place.free = true;
      place.turn?.();
      place.turn = undefined;
    }
    this.#flush();
  }

  #flush(): void {
    const places = this.#places;
    while (places.length > 0) {
      const head = places[0]!;
      if (head.kind === 'answer' ? head.free : head.skipped || head.run !== undefined) {
        places.shift();
        if (head.kind === 'message' && !head.skipped) head.run!();
        continue;
      }
      if (head.kind === 'answer' && head.turn !== undefined) {
        const turn = head.turn;
        head.turn = undefined;
        turn();
      }
      this.#holdFor(head);
      return;
    }
    this.#holdFor(undefined);
  }

  /** Starts (or keeps) the timer that lets everything pass a place held too long. */
  #holdFor(place: Place | undefined): void {
    if (this.#held === place) return;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#held = undefined;
    if (place === undefined || this.#places.length < 2) return;
    this.#held = place;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#held = undefined;
      this.#pass(place);
    }, HOLD_MS);
    this.#timer.unref?.();
  }

  /** Lets what waits behind `place` go; its own write then happens whenever it is ready. */
  #pass(place: Place): void {
    const at = this.#places.indexOf(place);
    if (at < 0) return;
    this.#places.splice(at, 1);
    if (place.kind === 'answer') {
      place.free = true;
      place.turn?.();
      place.turn = undefined;
    } else if (place.run !== undefined) place.run();
    this.#flush();
  }

  #close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#unclaimed = undefined;
    for (const place of this.#places.splice(0)) {
      if (place.kind === 'message') place.run?.();
      else place.turn?.();
    }
    this.#awaiting.clear();
    this.#open.clear();
    this.#responses.clear();
    this.#answers.clear();
  }
}
