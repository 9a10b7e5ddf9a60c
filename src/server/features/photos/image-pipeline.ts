import sharp, { type Metadata, type Sharp } from 'sharp';
import { guardedExifr } from '../../lib/exifr-guards';
import { cutText } from '../../lib/cut-text';
import { decodeHeic, HeicDecodeError, HeicThreadError, isMissingCodecError, sharpFromHeic } from '../../lib/heic';
import { rgbaToThumbHash } from './thumbhash';

export const THUMBNAIL_SIZE = 400;
export const PREVIEW_SIZE = 1440;
/** Long side of the small thumbnail (`makeSmallThumbnail`): an 80 CSS px box at 3 device pixels per pixel. */
export const SMALL_THUMBNAIL_SIZE = 240;
/**
 * Long side of the pixels the thumbhash is computed from. The hash keeps at most 7 x 7 cosine
 * terms, which 48 px already resolve (the same hash as from 100 px on the tested photo), and the
 * encoder's work grows with the pixels (see thumbhash.ts for why that work is garbage on the heap).
 */
export const THUMBHASH_INPUT = 48;
/**
 * 100 MP: admits every common phone sensor (48-64 MP, e.g. 8064 x 6048 or 9248 x 6936) and
 * full-frame cameras up to 61 MP, and refuses 108/200 MP full-resolution modes and anything a
 * decompression bomb claims. Every accepted image is decoded for its derivatives and may be
 * decoded again by a filter apply, so this bounds the work and memory one upload can cause.
 */
export const DEFAULT_MAX_PIXELS = 100_000_000;

import { endsEarly, heifHasAv1, jpegDecodeRefusal, sniffImageType, type ImageMime } from '../../lib/image-type';

export { sniffImageType, type ImageMime };

/** A file the pipeline refused; `status` is the HTTP status its result carries. */
export class ImageRejected extends Error {
  /**
   * The refusal is the catch-all UNREADABLE: no rule named what is wrong, so the uploader learns
   * nothing and only the decoder's own words (the cause) can tell whether a good photo was refused.
   */
  readonly unexplained: boolean;
  constructor(
    readonly status: number,
    message: string,
    options?: {
      /** What the decoder said, for the server's log (never for the client). */
      cause?: unknown;
      unexplained?: boolean;
    },
  ) {
    // Error reads `cause` from the options and nothing else.
    super(message, options);
    this.unexplained = options?.unexplained ?? false;
  }
}

const SHARP_FORMATS: Record<ImageMime, string[]> = {
  'image/jpeg': ['jpeg'],
  'image/png': ['png'],
  'image/webp': ['webp'],
  'image/avif': ['heif'],
  'image/gif': ['gif'],
  'image/tiff': ['tiff'],
  'image/heic': ['heif'],
};

export interface Derivatives {
  mime: ImageMime;
  /** Displayed size, after EXIF rotation. */
  width: number;
  height: number;
  preview: Buffer;
  thumbnail: Buffer;
  thumbhash: string;
  takenAt: Date | null;
  exif: Record<string, unknown> | null;
}

/** The answer when no rule names what is wrong with an image. */
export const UNREADABLE = 'This image could not be read.';

const UNSUPPORTED = 'This file is not a supported image. Use JPEG, PNG, WebP, AVIF, GIF, TIFF or HEIC.';

/**
 * What a failed decode tells the uploader. A failure of the server's own decoder thread is not the
 * image's fault and goes on as an error (a 500, logged), so a good photo is never called unreadable.
 */
function unreadable(err: unknown, bytes: Buffer, mime: ImageMime): Error {
  if (err instanceof HeicThreadError) return err;
  const reason = namedReason(err) ?? (endsEarly(bytes, mime) ? DAMAGED : null);
  return reason
    ? new ImageRejected(422, reason, { cause: err })
    : new ImageRejected(422, UNREADABLE, { cause: err, unexplained: true });
}

const DAMAGED = 'This image is damaged or incomplete and cannot be read.';

/** The refusal's reason when a rule recognises the decoder's error; null for any other. */
function namedReason(err: unknown): string | null {
  const m = err instanceof Error ? err.message : String(err);
  if (/pixel limit/i.test(m)) return 'This image has too many pixels to process.';
  if (/premature end|truncated|corrupt|invalid|unexpected end|bad/i.test(m)) return DAMAGED;
  return null;
}

const EXIF_PICK = [
  'DateTimeOriginal',
  'CreateDate',
  'Make',
  'Model',
  'LensModel',
  'ExposureTime',
  'FNumber',
  'ISO',
  'FocalLength',
  // The place, when the camera recorded it: exifr computes latitude/longitude from these.
  'GPSLatitude',
  'GPSLatitudeRef',
  'GPSLongitude',
  'GPSLongitudeRef',
  'latitude',
  'longitude',
];

/**
 * The EXIF fields the gallery shows. `container` is the EXIF block sharp found in the file's
 * container, read when exifr cannot find the block in the file itself (some HEIF layouts), or
 * alone when `bytes` is null.
 */
async function readExif(
  bytes: Buffer | null,
  container?: Buffer,
): Promise<{ takenAt: Date | null; exif: Record<string, unknown> | null }> {
  try {
    // exifr runs on this (the HTTP) thread: see exifr-guards.ts for what it once spent here.
    const exifr = guardedExifr();
    const parse = async (b: Buffer) => {
      const d = (await exifr.parse(b, { pick: EXIF_PICK, reviveValues: true }).catch(() => undefined)) as
        Record<string, unknown> | undefined;
      return d && EXIF_PICK.some((k) => d[k] !== undefined) ? d : undefined;
    };
    const data = (bytes ? await parse(bytes) : undefined) ?? (container ? await parse(container) : undefined);
    if (!data) return { takenAt: null, exif: null };
    const raw = data.DateTimeOriginal ?? data.CreateDate;
    const takenAt = raw instanceof Date && !Number.isNaN(raw.getTime()) ? raw : null;
    const exif: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) {
      if (v instanceof Date) exif[k] = Number.isNaN(v.getTime()) ? null : v.toISOString();
      // An EXIF text ends at its first NUL (what follows is padding or junk), and jsonb refuses
      // one: a photo whose camera wrote 'Ca\0non' failed its insert with a 500. Cut between
      // characters: half an emoji is refused by jsonb too.
      else if (typeof v === 'string') exif[k] = cutText(v.split('\0', 1)[0]!, 200);
      else if (typeof v === 'number') exif[k] = v;
    }
    return { takenAt, exif: Object.keys(exif).length ? exif : null };
  } catch {
    return { takenAt: null, exif: null };
  }
}

/** Set once sharp has failed on HEVC: later HEIC uploads go straight to the WASM decoder. */
let sharpDecodesHevc = true;

/**
 * Runs `use` on the image's pixels: from sharp, or for a HEIC that this sharp cannot decode (no
 * HEVC decoder in its libheif) from the WASM decoder, which checks the size before decoding.
 * `decoded` (displayed size) is set when the WASM decoder was used.
 */
export async function decodeWith<T>(
  mime: ImageMime,
  input: () => Sharp,
  bytes: Buffer,
  maxPixels: number,
  use: (s: Sharp, decoded?: { width: number; height: number }) => Promise<T>,
): Promise<T> {
  const viaWasm = async () => {
    const decoded = await decodeHeic(bytes, maxPixels).catch((err: unknown) => {
      if (err instanceof HeicDecodeError && err.tooLarge) throw new Error('pixel limit exceeded');
      throw err;
    });
    return use(sharpFromHeic(decoded), decoded);
  };
  if (mime === 'image/heic' && !sharpDecodesHevc) return viaWasm();
  try {
    return await use(input());
  } catch (err) {
    if (mime !== 'image/heic') throw err;
    // Any failure of sharp on a HEIC goes to the WASM decoder, whose own answer then stands: the
    // missing codec is not always named (with other images decoding at once, libvips' message
    // can come back as sharp's "Unknown error", which failed a good photo as unreadable).
    if (isMissingCodecError(err)) sharpDecodesHevc = false;
    return viaWasm();
  }
}

/** Long side of the display rendition (see `makeDisplayRendition`). */
export const DISPLAY_SIZE = 4096;

/** Types every browser shows in an <img>; the others (TIFF, HEIC) get a display rendition. */
export const BROWSER_IMAGE_MIMES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/webp',
  'image/avif',
  'image/gif',
]);

/**
 * The full photo as a JPEG any browser can show, for originals browsers cannot (HEIC, TIFF):
 * EXIF-rotated, long side at most DISPLAY_SIZE (the viewer's zoom never needs more), made on
 * demand from the stored original, which already passed the upload's checks.
 */
/** A JPEG whose decode would cost far more than its size says (`jpegDecodeRefusal`): 422 before any decode. */
function refuseCostlyJpeg(bytes: Buffer, mime: ImageMime) {
  const refusal = mime === 'image/jpeg' ? jpegDecodeRefusal(bytes) : null;
  if (refusal) throw new ImageRejected(422, refusal);
}

/**
 * Memory a decoder may hold for a whole frame at once: the bound a progressive JPEG's coefficients
 * have (`jpegDecodeRefusal`). libvips streams most images by rows and shrinks a JPEG as it reads,
 * so a 100 MP baseline JPEG, non-interlaced PNG, TIFF or WebP costs 115-350 MB of RSS (measured
 * through `makeDerivatives`); the decoders below hold the whole frame first, so a few KB could ask
 * for gigabytes within the 100 MP cap.
 */
export const MAX_FRAME_BYTES = 320 * 1024 * 1024;

/**
 * Why this image's decoder would hold far more memory than its size says, or null. From the header
 * (sharp's metadata), before any pixel is decoded:
 * - AV1 (AVIF, or AV1 in a HEIF under a HEIC brand, which libvips reports as HEVC and decodes all
 *   the same: `bytes` tell): libheif and libaom hold the frame several times over, ~18 bytes a pixel
 *   measured at 8 bits (a 12 MP photo: 312 MB of RSS), ~26 at 12 bits with alpha; a 2 KB AVIF of
 *   10,000 x 10,000 took 1.8 GB and 3 s, one of 12 bits with alpha 2.4 GB. Counted at 16 and 24.
 * - An interlaced PNG: libpng returns rows only once every pass is read, so the whole image is held
 *   at its own depth (a 1.2 MB PNG of 10,000 x 10,000 in 16-bit RGBA: 943 MB).
 * - GIF: a 4-byte-a-pixel canvas (a 68 KB GIF of 10,000 x 10,000: 544 MB).
 */
export function wholeFrameRefusal(meta: Metadata, bytes: Buffer): string | null {
  const { width = 0, height = 0, format } = meta;
  const pixels = width * height;
  const size = `${width} x ${height} pixels`;
  if (format === 'heif' && (meta.compression === 'av1' || heifHasAv1(bytes))) {
    if (pixels * ((meta.bitsPerSample ?? 8) > 8 ? 24 : 16) <= MAX_FRAME_BYTES) return null;
    return `This AVIF image is too large to read here (${size}). Save it as JPEG, or at a smaller size, and upload it once more.`;
  }
  if (format === 'png' && meta.isProgressive) {
    if (pixels * (meta.channels ?? 4) * (meta.depth === 'ushort' ? 2 : 1) <= MAX_FRAME_BYTES) return null;
    return `This interlaced PNG is too large to read here (${size}). Save it again without interlacing, or at a smaller size, and upload it once more.`;
  }
  if (format === 'gif') {
    if (pixels * 4 <= MAX_FRAME_BYTES) return null;
    return `This GIF is too large to read here (${size}). Save it as PNG or JPEG and upload it once more.`;
  }
  return null;
}

/**
 * Why decoding this stored file would cost far more than its size says, or null: the upload's
 * checks, for a file that may have been stored before they were made (the filter apply reads the
 * original again). A file sharp cannot read the header of is left to the decode, which refuses it.
 */
export async function decodeRefusal(bytes: Buffer): Promise<string | null> {
  const mime = sniffImageType(bytes);
  if (mime === 'image/jpeg') return jpegDecodeRefusal(bytes);
  if (!mime) return null;
  const meta = await sharp(bytes, { limitInputPixels: false })
    .metadata()
    .catch(() => null);
  return meta ? wholeFrameRefusal(meta, bytes) : null;
}

export async function makeDisplayRendition(bytes: Buffer, opts: { maxPixels?: number } = {}): Promise<Buffer> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  const mime = sniffImageType(bytes);
  if (!mime) throw new ImageRejected(415, UNSUPPORTED);
  const refusal = await decodeRefusal(bytes);
  if (refusal) throw new ImageRejected(422, refusal);
  const input = () => sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', autoOrient: true });
  try {
    return await decodeWith(mime, input, bytes, maxPixels, (s) =>
      s
        .resize(DISPLAY_SIZE, DISPLAY_SIZE, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .toColourspace('srgb')
        .jpeg({ quality: 85, mozjpeg: false })
        .toBuffer(),
    );
  } catch (err) {
    throw unreadable(err, bytes, mime);
  }
}

/**
 * Checks and decodes an upload once and makes everything the gallery needs: the EXIF-rotated
 * ~1440 px WebP preview, the ~400 px WebP thumbnail (made from the preview's pixels, not a second
 * decode), a thumbhash, dimensions and the taken-at time. Throws ImageRejected for anything that
 * is not a readable image within the pixel limit.
 */
export async function makeDerivatives(bytes: Buffer, opts: { maxPixels?: number } = {}): Promise<Derivatives> {
  const maxPixels = opts.maxPixels ?? DEFAULT_MAX_PIXELS;
  const mime = sniffImageType(bytes);
  if (!mime) throw new ImageRejected(415, UNSUPPORTED);
  refuseCostlyJpeg(bytes, mime);

  const input = () => sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', autoOrient: true });
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch (err) {
    throw unreadable(err, bytes, mime);
  }
  if (!meta.format || !SHARP_FORMATS[mime].includes(meta.format)) throw new ImageRejected(415, UNSUPPORTED);
  if (!meta.width || !meta.height) throw new ImageRejected(422, UNREADABLE, { unexplained: true });
  // Checked from the header before any pixel is decoded: a bomb is refused in microseconds.
  if (meta.width * meta.height > maxPixels) {
    throw new ImageRejected(
      422,
      `This image is too large (${meta.width} x ${meta.height} pixels). The limit is ${Math.round(maxPixels / 1e6)} megapixels.`,
    );
  }
  const frameRefusal = wholeFrameRefusal(meta, bytes);
  if (frameRefusal) throw new ImageRejected(422, frameRefusal);
  let width = meta.autoOrient?.width ?? meta.width;
  let height = meta.autoOrient?.height ?? meta.height;

  try {
    const [previewRaw, exifInfo] = await Promise.all([
      decodeWith(mime, input, bytes, maxPixels, (s, decoded) => {
        if (decoded) ({ width, height } = decoded);
        // Transparent areas become white, as in the display rendition and the vision engine's own
        // decode: dropping the alpha left whatever colour they held (black, as a rule) in the
        // preview, the thumbnails, and so in what the vision threads analyse.
        return s
          .resize(PREVIEW_SIZE, PREVIEW_SIZE, { fit: 'inside', withoutEnlargement: true })
          .flatten({ background: '#ffffff' })
          .toColourspace('srgb')
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
      }),
      // Not a PNG's own chunks, which exifr walks in JS on this thread (a 7.5 MB PNG of 500,000
      // text chunks: 1.6 s and 325 MB): its eXIf chunk, as libvips found it, is a bare TIFF.
      readExif(mime === 'image/png' ? null : bytes, meta.exif),
    ]);
    const raw = { width: previewRaw.info.width, height: previewRaw.info.height, channels: 3 as const };
    const fromRaw = () => sharp(previewRaw.data, { raw });
    const [preview, thumbnail, hashPixels] = await Promise.all([
      fromRaw().webp({ quality: 80, effort: 2 }).toBuffer(),
      fromRaw()
        .resize(THUMBNAIL_SIZE, THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
        .webp({ quality: 75, effort: 2 })
        .toBuffer(),
      fromRaw()
        .resize(THUMBHASH_INPUT, THUMBHASH_INPUT, { fit: 'inside' })
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true }),
    ]);
    const hash = rgbaToThumbHash(hashPixels.info.width, hashPixels.info.height, hashPixels.data);
    return {
      mime,
      width,
      height,
      preview,
      thumbnail,
      thumbhash: Buffer.from(hash).toString('base64'),
      takenAt: exifInfo.takenAt,
      exif: exifInfo.exif,
    };
  } catch (err) {
    throw unreadable(err, bytes, mime);
  }
}

/**
 * The small thumbnail, made from the stored thumbnail (a WebP of at most THUMBNAIL_SIZE px this
 * server wrote itself), so it costs one small decode and no read of the original.
 */
export function makeSmallThumbnail(thumbnail: Buffer): Promise<Buffer> {
  return sharp(thumbnail, { limitInputPixels: THUMBNAIL_SIZE * THUMBNAIL_SIZE, failOn: 'error' })
    .resize(SMALL_THUMBNAIL_SIZE, SMALL_THUMBNAIL_SIZE, { fit: 'inside', withoutEnlargement: true })
    .webp({ quality: 70, effort: 2 })
    .toBuffer();
}
