import { describe, expect, it } from 'vitest';
import {
  cosine,
  duplicateGroups,
  hashBands,
  monthLabel,
  nearest,
  searchForms,
  searchWords,
  SEARCH_FORMS_MAX,
  SEARCH_WORDS_MAX,
  timelineRows,
  toPrefixTsquery,
} from './find';

describe('search words', () => {
  it('keeps runs of letters and digits, lowercased, without repeats', () => {
    expect(searchWords('iPhone 12')).toEqual(['iphone', '12']);
    expect(searchWords("food_drink & dog's!")).toEqual(['food', 'drink', 'dog', 's']);
    expect(searchWords('Café café')).toEqual(['café']);
    expect(searchWords('  !!! ')).toEqual([]);
    expect(searchWords('a b c d e f g h i j')).toHaveLength(SEARCH_WORDS_MAX);
  });
  it('keeps the marks of a word in it, composed, and takes no mark alone for a word', () => {
    expect(searchWords('नमस्ते ภูเขา')).toEqual(['नमस्ते', 'ภูเขา']);
    expect(searchWords('Cafe\u0301')).toEqual(['caf\u00e9']);
    expect(searchWords('\u0301 \u093e')).toEqual([]);
  });
  it('lets no tsquery operator in through a word or its decomposed form, over every code point', () => {
    for (let c = 0; c < 0x110000; c++) {
      if (c >= 0xd800 && c < 0xe000) continue;
      for (const w of searchWords(`a${String.fromCodePoint(c)}`)) {
        const q = toPrefixTsquery([w])!;
        if (!/^(?:[\p{L}\p{M}\p{N}]+:\*|\([\p{L}\p{M}\p{N}]+:\*(?: \| [\p{L}\p{M}\p{N}]+:\*)+\))$/u.test(q))
          expect.fail(`U+${c.toString(16)}: ${q}`);
      }
    }
  });
  it('looks for each word as PostgreSQL lowercases a photo’s words, whatever the case typed', () => {
    // PostgreSQL lowercases a code point at a time: 'İ' -> 'i', a final 'Σ' -> 'σ'. JavaScript
    // made 'i' + U+0307 and 'ς', so 'İstanbul' and 'ΣΟΦΟΣ' found nothing named so.
    expect(toPrefixTsquery(searchWords('İstanbul'))).toBe('(i\u0307stanbul:* | istanbul:*)');
    expect(toPrefixTsquery(searchWords('ISTANBUL'))).toBe('istanbul:*');
    expect(toPrefixTsquery(searchWords('ΣΟΦΟΣ'))).toBe('(σοφοσ:* | σοφος:*)');
    expect(toPrefixTsquery(searchWords('σοφος'))).toBe('(σοφος:* | σοφοσ:*)');
    expect(toPrefixTsquery(searchWords('Straße STRASSE'))).toBe('(straße:* | strasse:*) & (strasse:* | straße:*)');
    expect(toPrefixTsquery(searchWords('ｉｓｔａｎｂｕｌ ２０２４'))).toBe(
      '(ｉｓｔａｎｂｕｌ:* | istanbul:*) & (２０２４:* | 2024:*)',
    );
    expect(toPrefixTsquery(searchWords('ılık'))).toBe('(ılık:* | ilik:* | ilık:*)');
    expect(toPrefixTsquery(searchWords('iPhone'))).toBe('iphone:*');
  });
  it('bounds the spellings of one word', () => {
    // Every rule applies to this word, each doubling what is looked for.
    expect(searchForms('ıssςｉé')).toHaveLength(SEARCH_FORMS_MAX);
  });
  it('makes an AND of prefix terms, or nothing', () => {
    expect(toPrefixTsquery(['march', '2024'])).toBe('march:* & 2024:*');
    expect(toPrefixTsquery(['caf\u00e9', 'flore'])).toBe('(caf\u00e9:* | cafe\u0301:*) & flore:*');
    expect(toPrefixTsquery([])).toBeNull();
  });
});

describe('timeline rows', () => {
  it('opens each month with a header and fills rows per month', () => {
    const dates = [
      '2024-03-20T10:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
      '2024-03-01T00:00:00.000Z',
      '2023-12-31T23:59:59.000Z',
    ];
    expect(timelineRows(dates, 2, 3)).toEqual([
      { kind: 'header', label: 'March 2024' },
      { kind: 'tiles', start: 0, end: 2 },
      { kind: 'tiles', start: 2, end: 3 },
      { kind: 'header', label: 'December 2023' },
      { kind: 'tiles', start: 3, end: 4 },
      { kind: 'tiles', start: 4, end: 6 },
      { kind: 'tiles', start: 6, end: 7 },
    ]);
    expect(monthLabel('2024-03-05T10:00:00+02:00')).toBe('March 2024');
    expect(timelineRows([], 2)).toEqual([]);
  });
});

describe('similarity', () => {
  it('cosine, nearest and duplicate groups', () => {
    expect(cosine([1, 0], [1, 0])).toBe(1);
    expect(cosine([1, 0], [0, 1])).toBe(0);
    expect(cosine([0, 0], [1, 1])).toBe(0);
    const c = [
      { id: 'b', vector: [1, 0.1] },
      { id: 'a', vector: [0, 1] },
      { id: 'c', vector: [1, 0.2] },
    ];
    expect(nearest([1, 0], c, 2).map((x) => x.id)).toEqual(['b', 'c']);
    expect(nearest([1, 0], c, 5, 0.5).map((x) => x.id)).toEqual(['b', 'c']);
    const v = new Map<string, number[]>([
      ['p1', [1, 0]],
      ['p2', [1, 0.01]],
      ['p3', [1, 0.02]],
      ['p4', [0, 1]],
    ]);
    // p1~p2 in one bucket and p2~p3 in another join one group; p4 is not alike.
    expect(
      duplicateGroups(
        [
          ['p1', 'p2', 'p4'],
          ['p2', 'p3'],
        ],
        v,
        0.99,
      ),
    ).toEqual([['p1', 'p2', 'p3']]);
    expect(duplicateGroups([['p1', 'p4']], v, 0.99)).toEqual([]);
  });
  it('splits a 64-bit hash into four bands', () => {
    expect(hashBands('0001ffff8000abcd')).toEqual([1, 65535, 32768, 43981]);
    expect(() => hashBands('xyz')).toThrow();
  });
});
