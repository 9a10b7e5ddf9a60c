import type { Notifications } from '../../db/notifications';
import type { LibraryState } from './photos.repository';

/** Users whose version is kept; past this the oldest entries go (their next request reads the database). */
export const LIBRARY_VERSIONS_MAX_USERS = 100_000;

/**
 * Each user's library state as the database last told this process, so a request for a cached
 * first page needs no database read.
 *
 * Told by the trigger of migration 0006_photo_library_notify on every change of a version: this
 * process's own writes arrive before the write's statement returns (so the next request sees
 * them), other processes' through the listening connection a moment after they commit. A state
 * is used only while that connection listens: on losing it everything is forgotten and requests
 * read the database again until it is back, and a read started before the loss is not kept.
 * Versions only grow, so a state older than one already known is ignored whatever order reads
 * and notifications arrive in.
 */
export function createLibraryVersions(source: Notifications, maxUsers = LIBRARY_VERSIONS_MAX_USERS) {
  const known = new Map<string, LibraryState>();
  let up = source.listening;
  /** Changes whenever listening stops or starts: a read begun in another generation is not kept. */
  let generation = 0;

  function keep(userId: string, state: LibraryState) {
    const old = known.get(userId);
    if (old && old.version >= state.version) return;
    if (old) known.delete(userId);
    known.set(userId, state);
    if (known.size > maxUsers) known.delete(known.keys().next().value!);
  }

  const unsubscribe = source.subscribe('eyevu_photo_library', {
    message(payload) {
      if (!up) return;
      const [userId, version, total] = payload.split(':');
      const state = { version: Number(version), total: Number(total) };
      if (!userId || !Number.isSafeInteger(state.version) || !Number.isSafeInteger(state.total)) {
        // Not this trigger's: a change may have been missed, so nothing known is trusted.
        generation += 1;
        known.clear();
        return;
      }
      keep(userId, state);
    },
    listening(value) {
      up = value;
      generation += 1;
      known.clear();
    },
  });

  return {
    /** The user's state if it is known (and so current, up to another process's notification delay). */
    get(userId: string): LibraryState | undefined {
      return up ? known.get(userId) : undefined;
    },
    /** Taken before a database read of a state; hand it to `learn` with what the read returned. */
    begin(): number | null {
      return up ? generation : null;
    },
    /** Keeps a state read from the database, if listening held from before the read until now. */
    learn(userId: string, state: LibraryState, token: number | null) {
      if (up && token === generation) keep(userId, state);
    },
    close: unsubscribe,
  };
}
export type LibraryVersions = ReturnType<typeof createLibraryVersions>;
