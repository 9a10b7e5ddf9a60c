import { z } from 'zod';
import { FILTER_IDS, INTENSITY } from '@domain/filters';
import { photo } from './photos';

/**
 * Photo editor endpoints (`/api/photo-filters/available`, `/preview`, `/apply`) plus
 * `/revert` and the image endpoint `/render` that previewUrls point at. `photoId` may be 'demo' (the
 * editor's fixed demo photo).
 */
export const FILTER_RENDER_SIZES = ['swatch', 'preview'] as const;
export type FilterRenderSize = (typeof FILTER_RENDER_SIZES)[number];

const photoId = z
  .string({ error: 'photoId is required' })
  .trim()
  .min(1, 'photoId is required')
  .max(64, 'photoId is too long');

export const filterName = z.enum(FILTER_IDS, {
  error: () => `Unknown filter. Choose one of: ${FILTER_IDS.join(', ')}.`,
});

const intensityRule = (n: z.ZodNumber) =>
  n
    .int(`Intensity must be a whole number between ${INTENSITY.min} and ${INTENSITY.max}.`)
    .min(INTENSITY.min, `Intensity must be between ${INTENSITY.min} and ${INTENSITY.max}.`)
    .max(INTENSITY.max, `Intensity must be between ${INTENSITY.min} and ${INTENSITY.max}.`)
    .refine((v) => (v - INTENSITY.min) % INTENSITY.step === 0, {
      message: `Intensity must be a step of ${INTENSITY.step} (${INTENSITY.min}, ${INTENSITY.min + INTENSITY.step}, ... ${INTENSITY.max}).`,
    });

export const intensity = intensityRule(z.number({ error: 'Intensity must be a number.' }));

export const filterRequest = z.object({ photoId, filterName, intensity });
export type FilterRequest = z.infer<typeof filterRequest>;

export const availableQuery = z.object({ photoId: photoId.optional() });
export const filterOption = z.object({ id: filterName, previewUrl: z.string() });
export type FilterOption = z.infer<typeof filterOption>;
export const availableResponse = z.array(filterOption);

export const previewResponse = z.object({ previewUrl: z.string() });
export type PreviewResponse = z.infer<typeof previewResponse>;

/** Apply and revert answer the photo as the gallery now shows it. */
export const editResponse = z.object({ message: z.string(), photo });
export type EditResponse = z.infer<typeof editResponse>;

export const revertBody = z.object({ photoId });

export const renderQuery = z.object({
  photoId,
  filterName,
  intensity: intensityRule(z.coerce.number({ error: 'Intensity must be a number.' })),
  size: z.enum(FILTER_RENDER_SIZES).default('preview'),
  /** The source blob's hash prefix: makes the URL name its content, so it is cacheable forever. */
  v: z.string().max(128).optional(),
});
