import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import { compress, mergeVary, preferredEncoding, type Encoding } from '../../http/compression';
import type { LibraryVersions } from './library-versions';
import type { LibraryState } from './photos.repository';

/** Serialised first pages kept in memory, least recently used out first (a few hundred KB per user). */
export const FIRST_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

interface Entry {
  version: number;
  json: Buffer;
  encoded: Partial<Record<Encoding, Promise<Buffer>>>;
  bytes: number;
}

/** A first page's JSON and the library state it was read at. */
export interface BuiltPage {
  state: LibraryState;
  json: string;
}
/** Builds a page; `known` is the state this request already read (null when it read none). */
export type BuildPage = (known: LibraryState | null) => Promise<BuiltPage>;

/** Which first page: the plain list, a page of `limit`, the timeline's first page of `limit`. */
export type FirstPageKind = string;

const SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz' };
/** A page differs per user and per encoding. */
const VARY = 'Cookie, Accept-Encoding';

/**
 * Each user's first gallery pages, serialised and compressed once per library version.
 *
 * A page is served from memory only while the version it was made at is still the user's library
 * version (kept by triggers in the same transaction as each write to photos, migration
 * 0004_photo_library_version). The version comes from `versions` when it knows it (told by every
 * write, library-versions.ts: no database read at all), otherwise from one primary-key read. The
 * ETag names user, page and version, so a repeat with If-None-Match costs at most that read (304).
 * A request with `Cache-Control: no-cache` (a browser's hard reload) makes the page again.
 */
export function createFirstPages(deps: {
  state: (userId: string) => Promise<LibraryState>;
  /** Versions told by the database's notifications; without it every request reads the version. */
  versions?: LibraryVersions;
  maxBytes?: number;
}) {
  const versions = deps.versions;
  const maxBytes = deps.maxBytes ?? FIRST_PAGE_CACHE_BYTES;
  const entries = new Map<string, Entry>();
  /** One build per (user, page, version) at a time: fifty requests after a write share one. */
  const building = new Map<string, Promise<Entry>>();
  let bytes = 0;
  /** Per user: the version read in flight and the one queued behind it. */
  const reads = new Map<string, { current: Promise<LibraryState>; next: Promise<LibraryState> | null }>();

  function startRead(userId: string): Promise<LibraryState> {
    // Started on the next turn of the event loop: the requests of this user that arrived in the
    // same turn (parsed from their sockets before it) share it. On PGlite a query runs on this
    // thread, so without the pause a read would finish before the next request was even read.
    const token = versions?.begin() ?? null;
    const slot = {
      current: new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => deps.state(userId))
        .then((state) => {
          versions?.learn(userId, state, token);
          return state;
        }),
      next: null as Promise<LibraryState> | null,
    };
    reads.set(userId, slot);
    const done = () => {
      if (reads.get(userId) === slot && !slot.next) reads.delete(userId);
    };
    slot.current.then(done, done);
    return slot.current;
  }

  /**
   * The user's library state as of a moment after this call. A read already in flight may have
   * taken its snapshot before a write this request must see, so it is not shared; every request
   * arriving meanwhile shares the one read that starts when it ends. A burst of requests of one
   * user (a gallery opening, fifty connections) costs a read or two, not one each.
   */
  function readState(userId: string): Promise<LibraryState> {
    const slot = reads.get(userId);
    if (!slot) return startRead(userId);
    const ignore = () => undefined;
    slot.next ??= slot.current.then(ignore, ignore).then(() => startRead(userId));
    return slot.next;
  }

  function store(key: string, entry: Entry) {
    const old = entries.get(key);
    if (old) {
      entries.delete(key);
      bytes -= old.bytes;
    }
    if (entry.bytes > maxBytes) return;
    entries.set(key, entry);
    bytes += entry.bytes;
    for (const [k, e] of entries) {
      if (bytes <= maxBytes) break;
      entries.delete(k);
      bytes -= e.bytes;
    }
  }

  async function make(
    known: LibraryState | null,
    build: BuildPage,
    read?: (state: LibraryState) => void,
  ): Promise<Entry> {
    const built = await build(known);
    // The state a build read with its rows is as good as a version read.
    if (!known) read?.(built.state);
    const json = Buffer.from(built.json);
    // Room for a compressed copy, made when first asked for (about a fifth of the JSON each).
    return { version: built.state.version, json, encoded: {}, bytes: Math.ceil(json.length * 1.5) };
  }

  function keep(key: string, entry: Entry) {
    // A slower, older build never replaces a newer page.
    const current = entries.get(key);
    if (!current || current.version <= entry.version) store(key, entry);
  }

  /** The page at `state`'s version (or a later one), from memory or built once for every request waiting on it. */
  async function entryFor(key: string, state: LibraryState, build: BuildPage): Promise<Entry> {
    const found = entries.get(key);
    if (found && found.version >= state.version) {
      entries.delete(key);
      entries.set(key, found);
      return found;
    }
    const flight = `${key}\n${state.version}`;
    const inFlight = building.get(flight);
    if (inFlight) return inFlight;
    const p = make(state, build);
    building.set(flight, p);
    try {
      const entry = await p;
      keep(key, entry);
      return entry;
    } finally {
      if (building.get(flight) === p) building.delete(flight);
    }
  }

  /** Cached bytes of `entry` in `encoding`, compressed on first demand (a failure is not kept). */
  function encodedOf(entry: Entry, encoding: Encoding): Promise<Buffer> {
    let encoded = entry.encoded[encoding];
    if (!encoded) {
      // Only the encoding asked for, when first asked for: most pages are never asked for in both.
      const made = compress(entry.json, encoding);
      entry.encoded[encoding] = encoded = made;
      made.catch(() => entry.encoded[encoding] === made && delete entry.encoded[encoding]);
    }
    return encoded;
  }

  async function serve(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
    kind: FirstPageKind,
    build: BuildPage,
  ) {
    reply.header('Cache-Control', 'private, no-cache');
    const vary = reply.getHeader('vary');
    reply.header('Vary', vary === undefined ? VARY : mergeVary(mergeVary(vary, 'Cookie'), 'Accept-Encoding'));
    const fresh = /\bno-cache\b/i.test(String(request.headers['cache-control'] ?? request.headers.pragma ?? ''));
    const inm = request.headers['if-none-match'];
    // A request that wants the page made again and names no copy it holds needs no separate
    // version read: the build reads the state with the rows.
    let state: LibraryState | null = null;
    let stateTag = '';
    if (!fresh || inm) {
      state = versions?.get(userId) ?? (await readState(userId));
      stateTag = tagOf(userId, kind, state.version);
      if (matches(inm, stateTag)) {
        reply.header('ETag', `"${stateTag}"`);
        return reply.code(304).send();
      }
    }
    const key = `${userId}\n${kind}`;
    let entry: Entry;
    if (fresh || !state) {
      const token = versions?.begin() ?? null;
      entry = await make(state, build, (read) => versions?.learn(userId, read, token));
      keep(key, entry);
    } else {
      entry = await entryFor(key, state, build);
    }
    const tag = state && entry.version === state.version ? stateTag : tagOf(userId, kind, entry.version);
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    reply.type('application/json; charset=utf-8');
    if (!encoding) {
      reply.header('ETag', `"${tag}"`);
      return reply.send(entry.json);
    }
    const body = await encodedOf(entry, encoding);
    // A strong ETag names the bytes: each encoding has its own.
    reply.header('ETag', `"${tag}${SUFFIX[encoding]}"`);
    reply.header('Content-Encoding', encoding);
    return reply.send(body);
  }

  return {
    /**
     * Answers a first page for `userId`: 304 when If-None-Match names the current version,
     * otherwise the cached bytes in the encoding the client prefers. `build` reads the page and
     * the library state it belongs to in one go (`known`: the state already read, or null).
     */
    sendPage: serve,

    /** As `sendPage`, for a page whose `build` needs the library state read first. */
    send(
      request: FastifyRequest,
      reply: FastifyReply,
      userId: string,
      kind: FirstPageKind,
      build: (state: LibraryState) => Promise<string>,
    ) {
      return serve(request, reply, userId, kind, async (known) => {
        const state = known ?? (await deps.state(userId));
        return { state, json: await build(state) };
      });
    },

    /** Forgets every page (tests, memory pressure); the next request makes them again. */
    clear() {
      entries.clear();
      bytes = 0;
    },
  };
}
export type FirstPages = ReturnType<typeof createFirstPages>;

/** Hashed names of (user, page), so a cached answer hashes nothing; dropped whole when full. */
const TAG_NAMES_MAX = 50_000;
const tagNames = new Map<string, string>();

/** Names the user's page at this version without showing the user id. */
function tagOf(userId: string, kind: FirstPageKind, version: number): string {
  const key = `${userId}\n${kind}`;
  let name = tagNames.get(key);
  if (name === undefined) {
    name = createHash('sha256').update(key).digest('base64url').slice(0, 16);
    if (tagNames.size >= TAG_NAMES_MAX) tagNames.clear();
    tagNames.set(key, name);
  }
  return `${name}.${version}`;
}

/** If-None-Match names this version (in any encoding: the content is the same, only its bytes differ). */
function matches(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return v === '*' || v === tag || v === `${tag}${SUFFIX.br}` || v === `${tag}${SUFFIX.gzip}`;
  });
}
