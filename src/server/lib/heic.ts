import { createRequire } from 'node:module';
import sharp, { type Sharp } from 'sharp';

/**
 * HEIC (HEVC-coded HEIF, the iPhone's format) decoded in WebAssembly. The libvips inside sharp's
 * prebuilt binaries reads the HEIF container (size, EXIF) but has no HEVC decoder, so the pixels
 * come from libheif compiled to WASM (`libheif-js`, the module and its .wasm bundled in the npm
 * package: nothing is fetched at run time). Used only when sharp cannot decode the file.
 */

interface HeifImageData {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}
interface HeifImage {
  get_width(): number;
  get_height(): number;
  is_primary(): boolean;
  display(target: HeifImageData, done: (result: HeifImageData | null) => void): void;
  free(): void;
}
interface HeifDecoder {
  decoder: number | null;
  decode(bytes: Uint8Array): HeifImage[];
}
interface LibHeif {
  HeifDecoder: new () => HeifDecoder;
  heif_context_free(context: number): void;
}

let lib: LibHeif | undefined;
/** Loaded on first use (~0.5 s and some memory), so a server that never sees a HEIC never pays. */
function libheif(): LibHeif {
  lib ??= createRequire(import.meta.url)('libheif-js/wasm-bundle') as LibHeif;
  return lib;
}

/** A decoded HEIC: interleaved RGBA, displayed orientation (the container's rotation applied). */
export interface DecodedHeic {
  data: Buffer;
  width: number;
  height: number;
  channels: 4;
}

/** The decoder's own refusal; `tooLarge` when the image is over the pixel limit. */
export class HeicDecodeError extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** One decode at a time: the WASM heap holds a whole frame (4 bytes a pixel), so this bounds memory. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Decodes the primary image of a HEIC. Its size is read from the container first and checked
 * against `maxPixels` before a single pixel is decoded, so a decompression bomb costs a header read.
 */
export function decodeHeic(bytes: Uint8Array, maxPixels: number): Promise<DecodedHeic> {
  const run = queue.then(() => decodeNow(bytes, maxPixels));
  queue = run.catch(() => undefined);
  return run;
}

async function decodeNow(bytes: Uint8Array, maxPixels: number): Promise<DecodedHeic> {
  const heif = libheif();
  const decoder = new heif.HeifDecoder();
  const images = decoder.decode(bytes);
  try {
    const image = images.find((i) => i.is_primary()) ?? images[0];
    if (!image) throw new HeicDecodeError('HEIF: no image in the file');
    const width = image.get_width();
    const height = image.get_height();
    if (!(width > 0 && height > 0)) throw new HeicDecodeError('HEIF: image without a size');
    if (width * height > maxPixels) throw new HeicDecodeError('HEIF: over the pixel limit', true);
    const target: HeifImageData = { data: new Uint8ClampedArray(width * height * 4), width, height };
    const shown = await new Promise<HeifImageData | null>((resolve) => image.display(target, resolve));
    if (!shown) throw new HeicDecodeError('HEIF: the image data is corrupt');
    return {
      data: Buffer.from(shown.data.buffer, shown.data.byteOffset, shown.data.byteLength),
      width,
      height,
      channels: 4,
    };
  } finally {
    for (const i of images) i.free();
    if (decoder.decoder) heif.heif_context_free(decoder.decoder);
    decoder.decoder = null;
  }
}

/** A sharp pipeline over a decoded HEIC's pixels. */
export function sharpFromHeic(decoded: DecodedHeic): Sharp {
  return sharp(decoded.data, { raw: { width: decoded.width, height: decoded.height, channels: decoded.channels } });
}

/** True for sharp's error when its libheif has no decoder for the file's codec (HEVC here). */
export function isMissingCodecError(err: unknown): boolean {
  const m = err instanceof Error ? err.message : String(err);
  return /compression format has not been built in|no decoder|hevc|libde265/i.test(m);
}
