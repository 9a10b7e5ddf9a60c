import { PGlite } from '@electric-sql/pglite';
import { mkdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The embedded database's own thread. PGlite runs PostgreSQL compiled to WebAssembly and every
 * statement blocks the thread it runs on, so it lives here and the server reaches it through the
 * PostgreSQL wire protocol on a private Unix socket, with the same `pg` driver it uses for a real
 * server.
 *
 * PGlite is one backend session. Connections take turns on it: the connection that sent a message
 * keeps the session until PostgreSQL reports it idle (ReadyForQuery 'I'), so an explicit
 * transaction, or an unfinished Parse/Bind/Execute batch with its unnamed statement, is never
 * interleaved with another connection's statements.
 */

export interface PgliteThreadData {
  dataDir: string;
  socketPath: string;
  /**
   * A dump (`dumpDataDir`) to start an in-memory database from instead of running initdb, which
   * costs several seconds of CPU; tests start one migrated database per app from it.
   */
  template?: string;
}

export type PgliteThreadMessage = { type: 'ready' } | { type: 'failed'; message: string } | { type: 'closed' };

const SSL_REQUEST = 80877103;
const GSS_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
/** ReadyForQuery's status byte when no transaction is open. */
const IDLE = 'I'.charCodeAt(0);
const SYNC = 'S'.charCodeAt(0);
const QUERY = 'Q'.charCodeAt(0);
const TERMINATE = 'X'.charCodeAt(0);
/** The startup packet has no type byte: its first byte is the high byte of its length, 0. */
const STARTUP = 0;
const SYNC_MESSAGE = new Uint8Array([SYNC, 0, 0, 0, 4]);

function simpleQuery(text: string): Uint8Array {
  const body = Buffer.from(`${text}\0`, 'utf8');
  const msg = Buffer.alloc(5 + body.length);
  msg[0] = QUERY;
  msg.writeInt32BE(4 + body.length, 1);
  body.copy(msg, 5);
  return msg;
}

const PARSE = 'P'.charCodeAt(0);
const BIND = 'B'.charCodeAt(0);
const DESCRIBE = 'D'.charCodeAt(0);
const CLOSE = 'C'.charCodeAt(0);
const EXECUTE = 'E'.charCodeAt(0);
const STATEMENT = 'S'.charCodeAt(0);

/** Reads a NUL-terminated string at `at`; returns it and the offset after its NUL. */
function cstring(buf: Buffer, at: number): [string, number] {
  const end = buf.indexOf(0, at);
  return [buf.toString('utf8', at, end), end + 1];
}

function message(type: number, parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeInt32BE(4 + body.length, 1);
  return Buffer.concat([head, body]);
}

const cstr = (s: string) => Buffer.from(`${s}\0`, 'utf8');

let nextConnectionId = 1;

class Connection {
  private buffered: Buffer = Buffer.alloc(0);
  private started = false;
  readonly pending: Uint8Array[] = [];
  /** This connection's named prepared statements, as the session knows them. */
  readonly statements = new Set<string>();
  closed = false;
  /** Its turn after closing came: nothing of it is left in the session. */
  cleaned = false;
  /**
   * Prepared statements and portals belong to the session, which every connection shares: each
   * connection's names get its own prefix, so two connections preparing "session_user" (as `pg`
   * does once per connection) never collide.
   */
  private readonly prefix = `c${nextConnectionId++}_`;

  constructor(readonly socket: net.Socket) {}

  private own(name: string) {
    return name === '' ? '' : this.prefix + name;
  }

  /** The message with its statement and portal names made this connection's own. */
  private rename(msg: Buffer): Buffer {
    const type = msg[0];
    if (type === PARSE) {
      const [name, at] = cstring(msg, 5);
      if (name === '') return msg;
      this.statements.add(this.own(name));
      return message(PARSE, [cstr(this.own(name)), msg.subarray(at)]);
    }
    if (type === BIND) {
      const [portal, at] = cstring(msg, 5);
      const [statement, rest] = cstring(msg, at);
      if (portal === '' && statement === '') return msg;
      return message(BIND, [cstr(this.own(portal)), cstr(this.own(statement)), msg.subarray(rest)]);
    }
    if (type === DESCRIBE || type === CLOSE) {
      const kind = msg[5];
      const [name] = cstring(msg, 6);
      if (name === '') return msg;
      if (type === CLOSE && kind === STATEMENT) this.statements.delete(this.own(name));
      return message(type, [Buffer.from([kind]), cstr(this.own(name))]);
    }
    if (type === EXECUTE) {
      const [portal, at] = cstring(msg, 5);
      if (portal === '') return msg;
      return message(EXECUTE, [cstr(this.own(portal)), msg.subarray(at)]);
    }
    return msg;
  }

  /** Splits what arrived into whole protocol messages; answers the pre-startup requests itself. */
  take(chunk: Buffer) {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    for (;;) {
      if (!this.started) {
        if (this.buffered.length < 8) return;
        const len = this.buffered.readInt32BE(0);
        if (this.buffered.length < len) return;
        const code = this.buffered.readInt32BE(4);
        const msg = this.buffered.subarray(0, len);
        this.buffered = this.buffered.subarray(len);
        if (code === SSL_REQUEST || code === GSS_REQUEST) {
          this.socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          // There is no other backend to signal; the protocol expects no answer.
          this.socket.end();
          return;
        } else {
          this.started = true;
          this.pending.push(new Uint8Array(msg));
        }
        continue;
      }
      if (this.buffered.length < 5) return;
      const len = 1 + this.buffered.readInt32BE(1);
      if (this.buffered.length < len) return;
      this.pending.push(new Uint8Array(this.rename(Buffer.from(this.buffered.subarray(0, len)))));
      this.buffered = this.buffered.subarray(len);
    }
  }
}

async function main() {
  const { dataDir, socketPath, template } = workerData as PgliteThreadData;
  if (dataDir !== 'memory://') mkdirSync(dataDir, { recursive: true });
  const db =
    template && dataDir === 'memory://'
      ? await PGlite.create(dataDir, { loadDataDir: new Blob([readFileSync(template)]) })
      : await PGlite.create(dataDir);

  const waiting: Connection[] = [];
  const connections = new Set<Connection>();
  let owner: Connection | null = null;
  let running = false;
  let stopping = false;

  /**
   * The connection's messages up to the next one PostgreSQL answers with ReadyForQuery, run as one
   * call: a query's Parse, Bind, Describe, Execute and Sync cost one crossing into WebAssembly.
   */
  function nextBatch(conn: Connection): { bytes: Uint8Array; answered: boolean } {
    let count = 0;
    let answered = false;
    while (count < conn.pending.length && !answered) {
      const type = conn.pending[count][0];
      if (type === TERMINATE) break;
      count++;
      answered = type === SYNC || type === QUERY || type === STARTUP;
    }
    const batch = conn.pending.splice(0, count);
    return { bytes: batch.length === 1 ? batch[0] : Buffer.concat(batch), answered };
  }

  /** Runs a batch on the session; true when it left the session idle, ending the connection's turn. */
  async function runBatch(conn: Connection, batch: { bytes: Uint8Array; answered: boolean }): Promise<boolean> {
    let lastByte = -1;
    const out: Buffer[] = [];
    await db.execProtocolRawStream(batch.bytes, {
      onRawData: (data) => {
        if (data.length === 0) return;
        lastByte = data[data.length - 1];
        out.push(Buffer.from(data));
      },
    });
    if (!conn.closed && out.length) conn.socket.write(out.length === 1 ? out[0] : Buffer.concat(out));
    // An answered batch ends with ReadyForQuery, whose final byte is the transaction status.
    return batch.answered && lastByte === IDLE;
  }

  /**
   * Leaves the session as if a closed connection had never been: its transaction or unfinished
   * batch rolled back, its prepared statements gone.
   */
  async function abandon(conn: Connection) {
    if (conn.cleaned) return;
    conn.cleaned = true;
    let status = -1;
    const collect = (data: Uint8Array) => {
      if (data.length) status = data[data.length - 1];
    };
    await db.execProtocolRawStream(SYNC_MESSAGE, { onRawData: collect });
    if (status !== IDLE) await db.execProtocolRawStream(simpleQuery('ROLLBACK'), { onRawData: collect });
    if (conn.statements.size === 0) return;
    const closes = [...conn.statements].map((name) => message(CLOSE, [Buffer.from([STATEMENT]), cstr(name)]));
    conn.statements.clear();
    await db.execProtocolRawStream(Buffer.concat([...closes, SYNC_MESSAGE]), { onRawData: () => {} });
  }

  async function pump() {
    if (running || stopping) return;
    running = true;
    try {
      while (!stopping) {
        if (!owner) {
          const next = waiting.shift();
          if (!next) break;
          owner = next;
        }
        if (owner.closed) {
          await abandon(owner);
          owner = null;
          continue;
        }
        if (!owner.pending.length) {
          // Mid-transaction and waiting for this connection's next message: nobody else may run.
          break;
        }
        if (owner.pending[0][0] === TERMINATE) {
          owner.pending.length = 0;
          owner.closed = true;
          owner.socket.end();
          continue;
        }
        const idle = await runBatch(owner, nextBatch(owner));
        if (idle) {
          const done = owner;
          owner = null;
          if (done.pending.length) waiting.push(done);
        }
      }
    } finally {
      running = false;
    }
  }

  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const conn = new Connection(socket);
    connections.add(conn);
    socket.on('data', (chunk: Buffer) => {
      const had = conn.pending.length;
      conn.take(chunk);
      if (had === 0 && conn.pending.length && owner !== conn && !waiting.includes(conn)) waiting.push(conn);
      void pump().catch(fatal);
    });
    const gone = () => {
      conn.closed = true;
      connections.delete(conn);
      // Its turn comes once more, to clean up after it.
      if (owner !== conn && !waiting.includes(conn)) waiting.push(conn);
      void pump().catch(fatal);
    };
    socket.on('close', gone);
    socket.on('error', () => socket.destroy());
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => resolve());
  });

  parentPort!.on('message', (msg: { type: string }) => {
    if (msg.type !== 'close') return;
    // An open transaction of a connection cut here is discarded, as on a server shutting down.
    stopping = true;
    server.close();
    for (const c of connections) c.socket.destroy();
    void (async () => {
      while (running) await new Promise((r) => setImmediate(r));
      await db.close();
      parentPort!.postMessage({ type: 'closed' } satisfies PgliteThreadMessage);
      parentPort!.close();
    })().catch(fatal);
  });

  parentPort!.postMessage({ type: 'ready' } satisfies PgliteThreadMessage);
}

function fatal(err: unknown) {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  parentPort?.postMessage({ type: 'failed', message } satisfies PgliteThreadMessage);
  process.exit(1);
}

main().catch(fatal);
