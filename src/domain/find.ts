/**
 * Pure rules of finding photos: the search words a query is reduced to, the gallery's month
 * sections, and the vector arithmetic behind "Similar photos" and "Possible duplicates".
 */

/** Longest search text the server accepts (characters); longer is a 400. */
export const SEARCH_QUERY_MAX = 100;
/** Words of a query that are used; the rest are ignored (each is one more index probe). */
export const SEARCH_WORDS_MAX = 8;

/** Spellings of one search word that are also looked for (see `searchForms`); more are dropped. */
export const SEARCH_FORMS_MAX = 16;

/**
 * Lowercase one code point at a time, as PostgreSQL's parser does for a photo's words (towlower):
 * JavaScript's `toLowerCase` on a whole word makes a final capital sigma 'ς' where PostgreSQL
 * makes 'σ', so 'ΣΟΦΟΣ' typed found nothing named 'ΣΟΦΟΣ'. 'İ' alone still becomes i + U+0307
 * here (PostgreSQL: 'i'); `searchForms` looks for both.
 */
const lowerEach = (s: string) => Array.from(s, (c) => c.toLowerCase()).join('');

/**
 * The words of a search, composed (NFC) and lowercased: runs of letters, digits and the marks
 * that go with them ("iPhone 12" -> iphone, 12; "food_drink" -> food, drink; "नमस्ते" whole).
 * Each is matched as a word prefix, all must match. Split at the marks (vowel signs, viramas,
 * accents typed as a second character), a Hindi, Bengali or Thai word became pieces that no word
 * of a photo begins with, as PostgreSQL's parser keeps the marks inside its words.
 */
export function searchWords(q: string): string[] {
  const runs = lowerEach(q.normalize('NFC')).match(/[\p{L}\p{M}\p{N}]+/gu) ?? [];
  // A mark alone is no word, as punctuation is not.
  const words = runs.filter((w) => /[\p{L}\p{N}]/u.test(w));
  return [...new Set(words)].slice(0, SEARCH_WORDS_MAX);
}

/** Full-width Latin letters and digits (a Japanese, Chinese or Korean keyboard's wide mode). */
const FULL_WIDTH = /[\uff10-\uff19\uff21-\uff3a\uff41-\uff5a]/gu;

/**
 * Other spellings a photo's word may be stored in for what was typed. Names are stored as they
 * arrived and lowercased by PostgreSQL a code point at a time, so the same word reads differently
 * by its case and keyboard; each is matched only where its letters differ, never more loosely:
 * - a composed letter also in its decomposed form (a file name from macOS often arrives so);
 * - 'i' + U+0307 (JavaScript's lowercase 'İ') as 'i' (PostgreSQL's): 'İstanbul' found nothing;
 * - full-width letters and digits as ASCII ('２０２４' finds 2024);
 * - Turkish dotless 'ı' as 'i', wholly or as the first letter, since its capital is 'I' ('ILIK'
 *   is stored 'ilik', 'Işık' 'işık'); not 'i' as 'ı', which would double the terms of every
 *   English word, to find only what was named in lowercase Turkish and typed in capitals;
 * - German 'ß' as 'ss' and 'ss' as 'ß' ('STRASSE' is how capitals write 'Straße');
 * - Greek 'ς' as 'σ' and a last 'σ' as 'ς' (capitals have one sigma).
 */
export function searchForms(word: string): string[] {
  const forms = [word];
  const add = (f: string) => {
    if (forms.length < SEARCH_FORMS_MAX && !forms.includes(f)) forms.push(f);
  };
  const each = (make: (f: string) => string) => {
    for (const f of [...forms]) add(make(f));
  };
  each((f) => f.replace(/i\u0307/gu, 'i'));
  each((f) => f.replace(FULL_WIDTH, (c) => String.fromCharCode(c.charCodeAt(0) - 0xfee0)));
  each((f) => f.replace(/ı/gu, 'i'));
  each((f) => f.replace(/^ı/u, 'i'));
  each((f) => f.replace(/ß/gu, 'ss'));
  each((f) => f.replace(/ss/gu, 'ß'));
  each((f) => f.replace(/ς/gu, 'σ'));
  each((f) => f.replace(/σ$/u, 'ς'));
  each((f) => f.normalize('NFD'));
  return forms;
}

/**
 * A PostgreSQL tsquery of prefix terms joined by AND; null when the query has no words. A word
 * whose photo's spelling may differ (`searchForms`) is an OR of its spellings.
 */
export function toPrefixTsquery(words: string[]): string | null {
  if (words.length === 0) return null;
  // Only letters, marks and digits reach here (none of them ASCII punctuation), and every form
  // of them is letters, marks and digits (find.test.ts checks every code point), so no tsquery
  // operator can be injected.
  return words
    .map((w) => {
      const forms = searchForms(w).map((f) => `${f}:*`);
      return forms.length === 1 ? forms[0]! : `(${forms.join(' | ')})`;
    })
    .join(' & ');
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/**
 * When a photo was taken for the timeline: the EXIF date taken, otherwise the upload time. Month
 * sections and month search both use UTC (EXIF dates carry no zone and are stored as read).
 */
export function timelineDate(p: { takenAt: string | null; uploadedAt: string }): string {
  return p.takenAt ?? p.uploadedAt;
}

/** 'March 2024' for an ISO date (UTC). */
export function monthLabel(iso: string): string {
  const d = new Date(iso);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** The UTC month of an ISO date as the API writes them ('2024-03-05T10:00:00.000Z' -> '2024-03'), without parsing. */
const monthKey = (iso: string) => (iso.endsWith('Z') ? iso.slice(0, 7) : new Date(iso).toISOString().slice(0, 7));

/** The gallery's virtual rows: a month header before each month's photos, then rows of `columns` tiles. */
export type TimelineRow = { kind: 'header'; label: string } | { kind: 'tiles'; start: number; end: number };

/**
 * Lays `dates` (timeline order, newest first) out as rows. `placeholders` more photos not yet
 * loaded follow in tile rows without headers (their months are not known yet).
 */
export function timelineRows(dates: readonly string[], columns: number, placeholders = 0): TimelineRow[] {
  const rows: TimelineRow[] = [];
  let i = 0;
  while (i < dates.length) {
    const key = monthKey(dates[i]!);
    rows.push({ kind: 'header', label: monthLabel(dates[i]!) });
    let j = i + 1;
    while (j < dates.length && monthKey(dates[j]!) === key) j++;
    for (let s = i; s < j; s += columns) rows.push({ kind: 'tiles', start: s, end: Math.min(j, s + columns) });
    i = j;
  }
  const total = dates.length + placeholders;
  for (let s = dates.length; s < total; s += columns) {
    rows.push({ kind: 'tiles', start: s, end: Math.min(total, s + columns) });
  }
  return rows;
}

/** Cosine similarity of two vectors of the same length (0 when either is all zeros). */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error('cosine: vectors of different lengths');
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** The `k` most similar of `candidates` to `target` at or above `min`, best first (ties by id). */
export function nearest<T extends { id: string; vector: ArrayLike<number> }>(
  target: ArrayLike<number>,
  candidates: readonly T[],
  k: number,
  min = -1,
): Array<T & { similarity: number }> {
  return candidates
    .map((c) => ({ ...c, similarity: cosine(target, c.vector) }))
    .filter((c) => c.similarity >= min)
    .sort((x, y) => y.similarity - x.similarity || (x.id < y.id ? -1 : 1))
    .slice(0, k);
}

/**
 * Groups near-identical photos: every pair within a bucket whose cosine is at least `threshold`
 * joins one group (union-find). Groups of two or more, each sorted by id, largest first then by first id.
 */
export function duplicateGroups(
  buckets: ReadonlyArray<readonly string[]>,
  vectors: ReadonlyMap<string, ArrayLike<number>>,
  threshold: number,
): string[][] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const union = (a: string, b: string) => {
    parent.set(a, parent.get(a) ?? a);
    parent.set(b, parent.get(b) ?? b);
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra < rb ? rb : ra, ra < rb ? ra : rb);
  };
  for (const bucket of buckets) {
    for (let i = 0; i < bucket.length; i++) {
      const va = vectors.get(bucket[i]!);
      if (!va) continue;
      for (let j = i + 1; j < bucket.length; j++) {
        const vb = vectors.get(bucket[j]!);
        if (vb && cosine(va, vb) >= threshold) union(bucket[i]!, bucket[j]!);
      }
    }
  }
  const groups = new Map<string, string[]>();
  for (const id of parent.keys()) {
    const r = find(id);
    groups.set(r, [...(groups.get(r) ?? []), id]);
  }
  return [...groups.values()]
    .filter((g) => g.length > 1)
    .map((g) => g.sort())
    .sort((a, b) => b.length - a.length || (a[0]! < b[0]! ? -1 : 1));
}

/** Splits a 64-bit difference hash (16 hex digits) into four 16-bit bands for bucketing. */
export function hashBands(hex: string): [number, number, number, number] {
  if (!/^[0-9a-f]{16}$/.test(hex)) throw new Error('hashBands: expected 16 hex digits');
  return [0, 4, 8, 12].map((i) => parseInt(hex.slice(i, i + 4), 16)) as [number, number, number, number];
}
