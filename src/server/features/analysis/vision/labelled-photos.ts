/**
 * The labelled photos on disk and the figures reported on them, shared by the accuracy test and
 * the analysis benchmark so both score the same photos the same way.
 */
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../../lib/paths';
import { PHOTO_CATEGORIES, isPhotoCategory, type CategoryResult, type PhotoCategory } from '@domain/photo-categories';
import { splitPart, type SplitPart } from '../classifier/split';

export interface LabelledPhoto {
  /** Absolute path. */
  file: string;
  expected: PhotoCategory;
  /**
   * Added in a later round (assets/reference-photos/round<N>.txt, N >= 2): labelled by eye before
   * any model saw them, after the split rule was fixed. Their test-part share is the fresh test part.
   */
  fresh?: boolean;
  /** Which round added the photo (1: the original pool). */
  round?: number;
}

/** assets/reference-photos/<category>/, the part of the split given (both when omitted). */
export async function labelledPhotos(part?: SplitPart): Promise<LabelledPhoto[]> {
  const out: LabelledPhoto[] = [];
  const root = path.join(projectRoot, 'assets', 'reference-photos');
  const roundOf = new Map<string, number>();
  // Every round's list that exists (round2.txt, round3.txt, ...); '#' lines are notes.
  for (let n = 2; existsSync(path.join(root, `round${n}.txt`)); n++) {
    const lines = (await readFile(path.join(root, `round${n}.txt`), 'utf8')).split('\n');
    for (const f of lines.map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))) roundOf.set(f, n);
  }
  for (const category of PHOTO_CATEGORIES) {
    const dir = path.join(root, category);
    for (const f of (await readdir(dir)).filter((x) => /\.(jpe?g|png|webp)$/i.test(x)).sort()) {
      if (!part || splitPart(f) === part) {
        const round = roundOf.get(`${category}/${f}`) ?? 1;
        out.push({ file: path.join(dir, f), expected: category, fresh: round > 1, round });
      }
    }
  }
  return out;
}

/** The demo library every account starts with, with the category each photo must get. */
export async function demoPhotos(): Promise<LabelledPhoto[]> {
  const dir = path.join(projectRoot, 'assets', 'demo-photos');
  const manifestPath = path.join(dir, 'manifest.json');
  if (!existsSync(manifestPath)) return [];
  const list: unknown = JSON.parse(await readFile(manifestPath, 'utf8'));
  if (!Array.isArray(list)) return [];
  return list.flatMap((e: unknown) => {
    const r = (typeof e === 'object' && e !== null ? e : {}) as Record<string, unknown>;
    return typeof r.file === 'string' && isPhotoCategory(r.expectedCategory)
      ? [{ file: path.join(dir, r.file), expected: r.expectedCategory }]
      : [];
  });
}

export interface Scored {
  expected: PhotoCategory;
  got: CategoryResult;
}

export interface Figures {
  photos: number;
  /** Right / all photos (an uncategorized photo counts as not right). */
  accuracy: number;
  abstained: number;
  /** Right / photos given a category. */
  precision: number;
  perCategory: Record<
    PhotoCategory,
    { photos: number; right: number; abstained: number; given: number; precision: number }
  >;
}

export function figures(rows: readonly Scored[]): Figures {
  const n = Math.max(rows.length, 1);
  const right = rows.filter((r) => r.got === r.expected).length;
  const given = rows.filter((r) => r.got !== 'uncategorized').length;
  const perCategory = Object.fromEntries(
    PHOTO_CATEGORIES.map((c) => {
      const mine = rows.filter((r) => r.expected === c);
      const givenC = rows.filter((r) => r.got === c);
      return [
        c,
        {
          photos: mine.length,
          right: mine.filter((r) => r.got === c).length,
          abstained: mine.filter((r) => r.got === 'uncategorized').length,
          given: givenC.length,
          precision: givenC.length ? givenC.filter((r) => r.expected === c).length / givenC.length : 1,
        },
      ];
    }),
  ) as Figures['perCategory'];
  return {
    photos: rows.length,
    accuracy: right / n,
    abstained: (rows.length - given) / n,
    precision: given ? right / given : 1,
    perCategory,
  };
}

const pct = (x: number): string => `${(x * 100).toFixed(1)} %`;

/** Per-category accuracy and precision, then the confusion matrix (rows truth, columns answer). */
export function report(title: string, rows: readonly Scored[]): string {
  const f = figures(rows);
  const cols: CategoryResult[] = [...PHOTO_CATEGORIES, 'uncategorized'];
  const lines = [
    `${title}: ${f.photos} photos, accuracy ${pct(f.accuracy)}, uncategorized ${pct(f.abstained)}, ` +
      `precision of the categories given ${pct(f.precision)}`,
    `${'category'.padEnd(20)}${'photos'.padStart(7)}${'right'.padStart(7)}${'accuracy'.padStart(10)}${'abstain'.padStart(9)}${'given'.padStart(7)}${'precision'.padStart(11)}`,
    ...PHOTO_CATEGORIES.map((c) => {
      const p = f.perCategory[c];
      return (
        c.padEnd(20) +
        String(p.photos).padStart(7) +
        String(p.right).padStart(7) +
        pct(p.photos ? p.right / p.photos : 0).padStart(10) +
        String(p.abstained).padStart(9) +
        String(p.given).padStart(7) +
        pct(p.precision).padStart(11)
      );
    }),
    '',
    'truth \\ answer'.padEnd(20) + cols.map((c) => c.slice(0, 8).padStart(9)).join(''),
    ...PHOTO_CATEGORIES.map(
      (t) =>
        t.padEnd(20) +
        cols.map((c) => String(rows.filter((r) => r.expected === t && r.got === c).length).padStart(9)).join(''),
    ),
  ];
  return lines.join('\n');
}
