/**
 * Which labelled photo is for tuning and which is for the honest test. Decided by the file name
 * alone, before any result is seen, so nobody can move a photo across the line after looking at
 * how it scores. Near-copies of one scene (`donna.jpg` / `donna_2.jpg`, a stereo pair, the same
 * monument from two packages) share a group key so they always land on the same side: a model
 * tuned on one of them would otherwise be "tested" on its twin.
 */

/** Share of groups that go to the test part (hash bucket < TEST_BUCKETS out of 10). */
export const TEST_BUCKETS = 3;

/** FNV-1a, 32 bit: tiny, dependency-free and stable across platforms and Node versions. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/**
 * `animals/gcompris--farm_horse.jpg` -> `horse`; `people/kphotoalbum--jesper_2.jpg` -> `jesper`.
 * Drops the folder, the extension, the `<package>--` prefix, the set prefixes used when one
 * package has two photos of a subject, variant suffixes and digits, then non-letters.
 */
export function splitGroupKey(file: string): string {
  let s = file.split(/[\\/]/).pop() ?? file;
  s = s.replace(/\.[a-z0-9]+$/i, '').toLowerCase();
  s = s.replace(/^.*?--/, '');
  s = s.replace(/^(farm|world)_/, '');
  s = s.replace(/[_-]?(background|orig|origin|original|source|left|right|mirror|small)$/, '');
  s = s.replace(/[_-]?\d+$/, '');
  return s.replace(/[^a-z]/g, '') || s;
}

export type SplitPart = 'tune' | 'test';

export function splitPart(file: string): SplitPart {
  return fnv1a(splitGroupKey(file)) % 10 < TEST_BUCKETS ? 'test' : 'tune';
}
