import type { FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { OutgoingHttpHeaders } from 'node:http';
import { compress, mergeVary, preferredEncoding, type Encoding } from '../../http/compression';
import { tooMany } from '../../http/errors';
import { tooManyMessage } from '../../http/rate-limits';
import type { LibraryVersions } from './library-versions';
import type { LibraryState } from './photos.repository';

/** Serialised first pages kept in memory, least recently used out first (a few hundred KB per user). */
export const FIRST_PAGE_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Kinds of page kept per user, least recently used out first. The web app asks for three (the
 * plain list, the gallery's pages, its timeline); each `limit` an API client names is a kind of
 * its own, and every kind kept is built again after each upload (`prepare`): unbounded, one
 * account's 400 limits made 400 builds per write and filled the cache every user shares.
 */
export const KINDS_PER_USER = 6;

/**
 * Builds a user's requests may start in a window (pages not found in memory; `prepare`'s after an
 * upload are not counted). First pages are not counted by the request limits, since their repeats
 * are answered from memory; a build is the cost a cursor page has, so it has the same budget.
 * Kept per process, like the pages: N processes allow N times as many.
 */
export const FIRST_PAGE_BUILDS_PER_WINDOW = 1200;
export const FIRST_PAGE_BUILD_WINDOW_MS = 5 * 60_000;

interface Entry {
  version: number;
  /** The ETag's value without its encoding suffix: user, page and this version. */
  tag: string;
  json: Buffer;
  encoded: Partial<Record<Encoding, Promise<Buffer>>>;
  /** The compressed copies made so far, to answer without waiting. */
  ready: Partial<Record<Encoding, Buffer>>;
  /** The answer's headers per encoding, made once: every request for this page sends the same. */
  heads: Partial<Record<Encoding | 'identity', OutgoingHttpHeaders>>;
  bytes: number;
}

/** A first page's JSON and the library state it was read at. */
export interface BuiltPage {
  state: LibraryState;
  json: string;
}
/** Builds a page; `known` is the latest state known when the build starts (the page may be newer). */
export type BuildPage = (known: LibraryState) => Promise<BuiltPage>;

interface Flight {
  /** Every version up to this one was known when the build started: it reads that one or a later one. */
  floor: number;
  current: Promise<Entry>;
  /** The build queued behind `current`, and the newest state its requests know. */
  next: Promise<Entry> | null;
  nextState: LibraryState | null;
}

/** Which first page: the plain list, a page of `limit`, the timeline's first page of `limit`. */
export type FirstPageKind = string;

const SUFFIX: Record<Encoding, string> = { br: '-br', gzip: '-gz' };
/** A page differs per user and per encoding. */
const VARY = 'Cookie, Accept-Encoding';
const CACHE_CONTROL = 'private, no-cache';
const JSON_TYPE = 'application/json; charset=utf-8';

/** The headers of a 200 with `entry`'s bytes in `encoding` (null: as they are). */
function headersOf(entry: Entry, encoding: Encoding | null, body: Buffer): OutgoingHttpHeaders {
  const slot = encoding ?? 'identity';
  let heads = entry.heads[slot];
  if (!heads) {
    heads = {
      'cache-control': CACHE_CONTROL,
      vary: VARY,
      'content-type': JSON_TYPE,
      // A strong ETag names the bytes: each encoding has its own.
      etag: `"${entry.tag}${encoding ? SUFFIX[encoding] : ''}"`,
      ...(encoding ? { 'content-encoding': encoding } : {}),
      'content-length': body.length,
    };
    entry.heads[slot] = heads;
  }
  return heads;
}

/**
 * Each user's first gallery pages, serialised and compressed once per library version.
 *
 * A page is served from memory only while the version it was made at is still the user's library
 * version (kept by triggers in the same transaction as each write to photos, migration
 * 0004_photo_library_version). The version comes from `versions` when it knows it (told by every
 * write, library-versions.ts: no database read at all), otherwise from one primary-key read. The
 * ETag names user, page and version, so a repeat with If-None-Match costs at most that read (304).
 *
 * `Cache-Control: no-cache` (a browser's hard reload) asks for an answer validated with the
 * origin, and a page checked against the library's current version is exactly that: it is served
 * like any other request. Making the page again for it would let one client cost a page build per
 * request. When a page must be made (a new version, or none known), the requests for it share one
 * build that starts after they arrived: one build in flight per user and page, one queued behind it.
 */
export function createFirstPages(deps: {
  state: (userId: string) => Promise<LibraryState>;
  /** Versions told by the database's notifications; without it every request reads the version. */
  versions?: LibraryVersions;
  maxBytes?: number;
  /** Milliseconds now, for the build budget's windows (tests move it). */
  clock?: () => number;
}) {
  const versions = deps.versions;
  const maxBytes = deps.maxBytes ?? FIRST_PAGE_CACHE_BYTES;
  const clock = deps.clock ?? Date.now;
  const entries = new Map<string, Entry>();
  /** Per user, the keys of their kept pages, least recently used first. */
  const kindsKept = new Map<string, Map<string, true>>();
  /** Per user, the builds their requests started in the current window. */
  const spent = new Map<string, { since: number; builds: number }>();
  /** The key last moved to the end of `entries` (the most recently used): a repeat moves nothing. */
  let lastUsed = '';
  /** Per user and page: the build in flight and the one queued behind it. */
  const builds = new Map<string, Flight>();
  let bytes = 0;
  /** How each feature builds its own kinds of page (`makes`), for `prepare`. */
  const makers: Array<(userId: string, kind: FirstPageKind) => BuildPage | null> = [];
  /** Per user: the version read in flight and the one queued behind it. */
  const reads = new Map<string, { current: Promise<LibraryState>; next: Promise<LibraryState> | null }>();

  function startRead(userId: string): Promise<LibraryState> {
    // Started on the next turn of the event loop: the requests of this user that arrived in the
    // same turn (parsed from their sockets before it) share it.
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

  const userOfKey = (key: string) => key.slice(0, key.indexOf('\n'));

  function forget(key: string) {
    const old = entries.get(key);
    if (!old) return;
    entries.delete(key);
    bytes -= old.bytes;
    const kept = kindsKept.get(userOfKey(key));
    kept?.delete(key);
    if (kept?.size === 0) kindsKept.delete(userOfKey(key));
  }

  /** Marks `key` as the user's most recently used kind. */
  function touchKind(key: string) {
    const user = userOfKey(key);
    let kept = kindsKept.get(user);
    if (!kept) kindsKept.set(user, (kept = new Map()));
    kept.delete(key);
    kept.set(key, true);
  }

  function store(key: string, entry: Entry) {
    forget(key);
    if (entry.bytes > maxBytes) return;
    const kept = kindsKept.get(userOfKey(key));
    if (kept && kept.size >= KINDS_PER_USER) {
      for (const oldest of kept.keys()) {
        forget(oldest);
        break;
      }
    }
    entries.set(key, entry);
    touchKind(key);
    lastUsed = key;
    bytes += entry.bytes;
    for (const k of entries.keys()) {
      if (bytes <= maxBytes) break;
      forget(k);
    }
  }

  /** Counts a build a request starts; past the user's budget, a 429. */
  function charge(userId: string) {
    const now = clock();
    let s = spent.get(userId);
    if (!s || now - s.since >= FIRST_PAGE_BUILD_WINDOW_MS) {
      // Ended windows go when the map grows large: it holds only users who built lately.
      if (!s && spent.size >= 10_000) {
        for (const [u, x] of spent) if (now - x.since >= FIRST_PAGE_BUILD_WINDOW_MS) spent.delete(u);
      }
      spent.set(userId, (s = { since: now, builds: 0 }));
    }
    if (s.builds >= FIRST_PAGE_BUILDS_PER_WINDOW) {
      const seconds = Math.max(1, Math.ceil((s.since + FIRST_PAGE_BUILD_WINDOW_MS - now) / 1000));
      throw Object.assign(tooMany(tooManyMessage(seconds)), { retryAfter: seconds });
    }
    s.builds += 1;
  }

  function keep(key: string, entry: Entry) {
    // A slower, older build never replaces a newer page.
    const current = entries.get(key);
    if (!current || current.version <= entry.version) store(key, entry);
  }

  /** Builds the page now; what it read teaches `versions` the user's state. */
  function startBuild(
    key: string,
    userId: string,
    kind: FirstPageKind,
    known: LibraryState,
    build: BuildPage,
  ): Promise<Entry> {
    // A build reads at a moment after it starts, so whatever version is known now is its floor.
    const told = versions?.get(userId);
    const state = told && told.version > known.version ? told : known;
    const token = versions?.begin() ?? null;
    const flight: Flight = {
      floor: state.version,
      current: Promise.resolve().then(async () => {
        const built = await build(state);
        versions?.learn(userId, built.state, token);
        const json = Buffer.from(built.json);
        // Room for a compressed copy, made when first asked for (about a fifth of the JSON each).
        const version = built.state.version;
        const entry: Entry = {
          version,
          tag: tagOf(userId, kind, version),
          json,
          encoded: {},
          ready: {},
          heads: {},
          bytes: Math.ceil(json.length * 1.5),
        };
        keep(key, entry);
        return entry;
      }),
      next: null,
      nextState: null,
    };
    builds.set(key, flight);
    const done = () => {
      if (builds.get(key) === flight && !flight.next) builds.delete(key);
    };
    flight.current.then(done, done);
    return flight.current;
  }

  /**
   * The page at `state`'s version or a later one. A build in flight is shared only if it began
   * once that version was known (it reads it or a later one); otherwise the request waits for the
   * one build queued behind it, which starts after every request waiting on it arrived.
   */
  function buildFor(
    key: string,
    userId: string,
    kind: FirstPageKind,
    state: LibraryState,
    build: BuildPage,
    byRequest = false,
  ): Promise<Entry> {
    const flight = builds.get(key);
    if (!flight) {
      if (byRequest) charge(userId);
      return startBuild(key, userId, kind, state, build);
    }
    if (flight.floor >= state.version) return flight.current;
    if (!flight.nextState || flight.nextState.version < state.version) flight.nextState = state;
    const ignore = () => undefined;
    if (!flight.next && byRequest) charge(userId);
    flight.next ??= flight.current
      .then(ignore, ignore)
      .then(() => startBuild(key, userId, kind, flight.nextState!, build));
    return flight.next;
  }

  /** The page at `state`'s version (or a later one), from memory or from a build shared with the requests waiting on it. */
  function entryFor(
    key: string,
    userId: string,
    kind: FirstPageKind,
    state: LibraryState,
    build: BuildPage,
  ): Entry | Promise<Entry> {
    const found = fresh(key, state.version);
    return found ?? buildFor(key, userId, kind, state, build, true);
  }

  /** The kept page if it is at `version` or later, marked as just used. */
  function fresh(key: string, version: number): Entry | undefined {
    const found = entries.get(key);
    if (!found || found.version < version) return undefined;
    if (lastUsed !== key) {
      entries.delete(key);
      entries.set(key, found);
      touchKind(key);
      lastUsed = key;
    }
    return found;
  }

  /** Cached bytes of `entry` in `encoding`, compressed on first demand (a failure is not kept). */
  function encodedOf(entry: Entry, encoding: Encoding): Promise<Buffer> {
    let encoded = entry.encoded[encoding];
    if (!encoded) {
      // Only the encoding asked for, when first asked for: most pages are never asked for in both.
      const made = compress(entry.json, encoding);
      entry.encoded[encoding] = encoded = made;
      made.then(
        (bytes) => void (entry.encoded[encoding] === made && (entry.ready[encoding] = bytes)),
        () => entry.encoded[encoding] === made && delete entry.encoded[encoding],
      );
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
    const inm = request.headers['if-none-match'];
    const state = versions?.get(userId) ?? (await readState(userId));
    const stateTag = tagOf(userId, kind, state.version);
    const vary = reply.getHeader('vary');
    if (inm && matches(inm, stateTag)) {
      reply.headers(notModifiedHeaders(stateTag));
      if (vary !== undefined) reply.header('Vary', mergeVary(mergeVary(vary, 'Cookie'), 'Accept-Encoding'));
      return reply.code(304).send();
    }
    let entry: Entry;
    try {
      entry = await entryFor(`${userId}\n${kind}`, userId, kind, state, build);
    } catch (err) {
      const retryAfter = (err as { retryAfter?: number }).retryAfter;
      if (retryAfter) reply.header('Retry-After', String(retryAfter));
      throw err;
    }
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    const body = encoding ? await encodedOf(entry, encoding) : entry.json;
    reply.headers(headersOf(entry, encoding, body));
    if (vary !== undefined) reply.header('Vary', mergeVary(mergeVary(vary, 'Cookie'), 'Accept-Encoding'));
    return reply.send(body);
  }

  /**
   * The answer `serve` would give, written at once when it needs nothing that is not in memory
   * already: the version told by the database, the page at that version, its bytes in the encoding
   * asked for. Nothing else of the request's lifecycle runs (validation, handler, send hooks): the
   * response's own listeners still run, so it is logged as any other. False: nothing was written.
   */
  function answerAtOnce(request: FastifyRequest, reply: FastifyReply, userId: string, kind: FirstPageKind): boolean {
    const state = versions?.get(userId);
    if (!state || request.method !== 'GET' || reply.raw.hasHeader('vary')) return false;
    const inm = request.headers['if-none-match'];
    if (inm) {
      const stateTag = tagOf(userId, kind, state.version);
      if (matches(inm, stateTag)) {
        reply.hijack();
        reply.raw.writeHead(304, notModifiedHeaders(stateTag));
        reply.raw.end();
        return true;
      }
    }
    const entry = fresh(`${userId}\n${kind}`, state.version);
    if (!entry) return false;
    const encoding = preferredEncoding(request.headers['accept-encoding']);
    const body = encoding ? entry.ready[encoding] : entry.json;
    if (!body) return false;
    reply.hijack();
    reply.raw.writeHead(200, headersOf(entry, encoding, body));
    reply.raw.end(body);
    return true;
  }

  return {
    /**
     * Answers a first page for `userId`: 304 when If-None-Match names the current version,
     * otherwise the cached bytes in the encoding the client prefers. `build` reads the page and
     * the library state it belongs to in one go (`known`: the latest state known as it starts).
     */
    sendPage: serve,

    answerAtOnce,

    /** As `sendPage`, for a page whose `build` needs the library state read first. */
    send(
      request: FastifyRequest,
      reply: FastifyReply,
      userId: string,
      kind: FirstPageKind,
      build: (state: LibraryState) => Promise<string>,
    ) {
      return serve(request, reply, userId, kind, async (state) => ({ state, json: await build(state) }));
    },

    /** Tells `prepare` how to build a feature's kinds of page: null for a kind that is not its own. */
    makes(maker: (userId: string, kind: FirstPageKind) => BuildPage | null) {
      makers.push(maker);
    },

    /**
     * After a write this process made to the user's library (an upload): starts building again
     * each of the user's pages that is kept and that a maker (`makes`) can build, so the gallery's
     * refresh, which asks for them next, finds the page made or being made. Only pages the user
     * has been served are made; a build's failure is left to the request that asks for the page.
     */
    prepare(userId: string) {
      const state = versions?.get(userId);
      if (!state) return;
      const prefix = `${userId}\n`;
      for (const [key, entry] of entries) {
        if (!key.startsWith(prefix) || entry.version >= state.version) continue;
        const kind = key.slice(prefix.length);
        let build: BuildPage | null = null;
        for (const maker of makers) build ??= maker(userId, kind);
        if (!build) continue;
        // Compressed as the old page was, for the encodings its clients asked for.
        const encodings = Object.keys(entry.ready) as Encoding[];
        buildFor(key, userId, kind, state, build).then(
          (made) => encodings.forEach((encoding) => void encodedOf(made, encoding).catch(() => undefined)),
          () => undefined,
        );
      }
    },

    /** Forgets every page (tests, memory pressure); the next request makes them again. */
    clear() {
      entries.clear();
      kindsKept.clear();
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

/** The headers of a 304 for the page at this version. */
function notModifiedHeaders(tag: string): OutgoingHttpHeaders {
  return { 'cache-control': CACHE_CONTROL, vary: VARY, etag: `"${tag}"` };
}

/** If-None-Match names this version (in any encoding: the content is the same, only its bytes differ). */
function matches(header: string | undefined, tag: string): boolean {
  if (!header) return false;
  // What a client sends back: the one ETag it was given.
  if (header === `"${tag}"` || header === `"${tag}${SUFFIX.br}"` || header === `"${tag}${SUFFIX.gzip}"`) return true;
  return header.split(',').some((t) => {
    const v = t.trim().replace(/^W\//, '').replace(/^"|"$/g, '');
    return v === '*' || v === tag || v === `${tag}${SUFFIX.br}` || v === `${tag}${SUFFIX.gzip}`;
  });
}
