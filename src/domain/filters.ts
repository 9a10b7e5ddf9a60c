/**
 * Photo filter catalogue shared by the web client and the server.
 * Pure data and validation only: no image code, so the client bundle stays small.
 */

/** Display order is the order in the photo editor's filter strip. */
export const FILTER_IDS = ['vintage', 'dramatic', 'soft_portrait', 'vibrant', 'black_white', 'sunset'] as const;

export type FilterId = (typeof FILTER_IDS)[number];

export interface FilterInfo {
  readonly id: FilterId;
  readonly name: string;
  /** The spec gives no description for some filters; null rather than an invented one. */
  readonly description: string | null;
}

export const FILTERS: Readonly<Record<FilterId, FilterInfo>> = {
  vintage: { id: 'vintage', name: 'Vintage', description: 'warm nostalgic film effect' },
  dramatic: { id: 'dramatic', name: 'Dramatic', description: 'high contrast' },
  soft_portrait: { id: 'soft_portrait', name: 'Soft Portrait', description: 'gentle skin smoothing' },
  vibrant: { id: 'vibrant', name: 'Vibrant', description: 'enhanced colours' },
  black_white: { id: 'black_white', name: 'Classic B&W', description: null },
  sunset: { id: 'sunset', name: 'Golden Hour', description: null },
};

export const FILTER_LIST: readonly FilterInfo[] = FILTER_IDS.map((id) => FILTERS[id]);

/**
 * Long side of a filter's full-size version: an apply renders the original at most this large (the
 * server's apply-render.ts), so an edit of a larger photo is smaller than its original.
 */
export const APPLY_MAX_SIZE = 4096;

/**
 * An edit's pixels for an original of `width` x `height` (EXIF-oriented): fitted inside
 * APPLY_MAX_SIZE, never enlarged, the short side rounded as libvips' resize does.
 */
export function appliedDimensions(width: number, height: number): { width: number; height: number } {
  const long = Math.max(width, height);
  if (long <= APPLY_MAX_SIZE) return { width, height };
  const scaled = (side: number) => Math.max(1, Math.round((side * APPLY_MAX_SIZE) / long));
  return width >= height
    ? { width: APPLY_MAX_SIZE, height: scaled(height) }
    : { width: scaled(width), height: APPLY_MAX_SIZE };
}

/** Intensity is a percentage: 100 is the filter as designed, 50 halfway back to the original. */
export const INTENSITY = { min: 50, max: 150, step: 10, default: 100 } as const;

export function isFilterId(value: unknown): value is FilterId {
  return typeof value === 'string' && (FILTER_IDS as readonly string[]).includes(value);
}

/** Matches the editor slider exactly, so the server rejects values the UI can never send. */
export function isValidIntensity(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= INTENSITY.min &&
    value <= INTENSITY.max &&
    (value - INTENSITY.min) % INTENSITY.step === 0
  );
}
