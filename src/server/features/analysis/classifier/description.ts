/** The one-line description of a photo, e.g. "Two people outdoors with a dog". */
import type { CategoryResult } from '@domain/photo-categories';
import type { DetectedObject } from './detections';
import { ANIMALS } from './coco-labels';

const NUMBER_WORDS = ['No', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten'];

function article(word: string): string {
  return /^[aeiou]/i.test(word) ? `an ${word}` : `a ${word}`;
}

function countPhrase(n: number, singular: string, plural: string): string {
  if (n === 1) return article(singular);
  return `${(NUMBER_WORDS[n] ?? String(n)).toLowerCase()} ${plural}`;
}

const CATEGORY_SUBJECT: Record<CategoryResult, string> = {
  people: 'People',
  animals: 'An animal',
  food_drink: 'Food and drink',
  nature_landscape: 'A landscape',
  vehicles_transport: 'A vehicle',
  city_architecture: 'A building',
  uncategorized: 'A photo',
};

function pluralise(label: string): string {
  if (label === 'person') return 'people';
  if (/(s|sh|ch)$/.test(label)) return `${label}es`;
  if (label === 'sheep') return label;
  return `${label}s`;
}

/** One line built from what was found, e.g. "Two people outdoors with a dog". */
export function describe(
  category: CategoryResult,
  personCount: number,
  objects: readonly DetectedObject[],
  setting: 'indoor' | 'outdoor' | undefined,
  night: boolean,
): string {
  const counts = new Map<string, number>();
  for (const o of objects) if (o.label !== 'person') counts.set(o.label, (counts.get(o.label) ?? 0) + 1);
  const others = [...counts.entries()].sort((a, b) => b[1] - a[1]);

  let subject: string;
  let rest = others;
  if (personCount > 0) {
    subject = personCount === 1 ? 'A person' : `${capitalise(countPhrase(personCount, 'person', 'people'))}`;
  } else if (category === 'animals' && others.some(([l]) => ANIMALS.has(l))) {
    const [label, n] = others.find(([l]) => ANIMALS.has(l)) ?? ['animal', 1];
    subject = capitalise(countPhrase(n, label, pluralise(label)));
    rest = others.filter(([l]) => l !== label);
  } else {
    subject = CATEGORY_SUBJECT[category];
  }
  let line = subject;
  if (setting === 'outdoor') line += ' outdoors';
  else if (setting === 'indoor') line += ' indoors';
  if (night) line += ' at night';
  const withs = rest.slice(0, 2).map(([l, n]) => countPhrase(n, l, pluralise(l)));
  if (withs.length) line += ` with ${withs.join(' and ')}`;
  return line;
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
