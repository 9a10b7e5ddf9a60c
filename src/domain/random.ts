/**
 * Deterministic randomness for the games.
 *
 * Rules never call Math.random(): callers pass a seed (the UI can use
 * `Math.floor(Math.random() * 2 ** 32)`), so every deal, question pick and
 * target position can be replayed in tests and reasoned about on the server.
 */

/** A source of floats in [0, 1), like Math.random. */
export type RandomSource = () => number;

/**
 * One pure step of mulberry32: returns the value and the state to use next.
 * Games that keep drawing numbers over time (reaction targets) store the
 * state in their own state object so their transitions stay pure.
 */
export function mulberry32Step(state: number): { value: number; state: number } {
  const next = (state + 0x6d2b79f5) >>> 0;
  let t = next;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  const value = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  return { value, state: next };
}

/** A seeded RandomSource (mulberry32) for one-shot work such as dealing a deck. */
export function mulberry32(seed: number): RandomSource {
  let state = seed >>> 0;
  return () => {
    const step = mulberry32Step(state);
    state = step.state;
    return step.value;
  };
}

/** Integer in [min, maxExclusive). */
export function randomInt(min: number, maxExclusive: number, random: RandomSource): number {
  return min + Math.floor(random() * (maxExclusive - min));
}

/** A shuffled copy (Fisher–Yates); the input is not mutated. */
export function shuffle<T>(items: readonly T[], random: RandomSource): T[] {
  const out = items.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = randomInt(0, i + 1, random);
    const tmp = out[i];
    out[i] = out[j];
    out[j] = tmp;
  }
  return out;
}

/** `count` distinct items in random order (all of them if there are fewer). */
export function pickRandom<T>(items: readonly T[], count: number, random: RandomSource): T[] {
  return shuffle(items, random).slice(0, Math.max(0, count));
}
