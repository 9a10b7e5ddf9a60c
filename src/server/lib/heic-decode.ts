import { createRequire } from 'node:module';

/**
 * The libheif WebAssembly decoder itself. Loaded only where decoding happens: in the HEIC thread
 * (lib/heic.ts) or inside another worker thread that decodes in place, never on the HTTP thread.
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
/** Loaded on first use (~0.5 s and some memory), so a thread that never sees a HEIC never pays. */
function libheif(): LibHeif {
  lib ??= createRequire(import.meta.url)('libheif-js/wasm-bundle') as LibHeif;
  return lib;
}

/** Interleaved RGBA pixels of the primary image, the container's rotation applied. */
export interface HeicPixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** The decoder's refusal; `tooLarge` when the image is over the pixel limit. */
export class HeicRefusal extends Error {
  constructor(
    message: string,
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

/** Size from the container first, checked against `maxPixels` before a single pixel is decoded. */
export async function decodeHeicHere(bytes: Uint8Array, maxPixels: number): Promise<HeicPixels> {
  const heif = libheif();
  const decoder = new heif.HeifDecoder();
  const images = decoder.decode(bytes);
  try {
    const image = images.find((i) => i.is_primary()) ?? images[0];
    if (!image) throw new HeicRefusal('HEIF: no image in the file');
    const width = image.get_width();
    const height = image.get_height();
    if (!(width > 0 && height > 0)) throw new HeicRefusal('HEIF: image without a size');
    if (width * height > maxPixels) throw new HeicRefusal('HEIF: over the pixel limit', true);
    const target: HeifImageData = { data: new Uint8ClampedArray(width * height * 4), width, height };
    const shown = await new Promise<HeifImageData | null>((resolve) => image.display(target, resolve));
    if (!shown) throw new HeicRefusal('HEIF: the image data is corrupt');
    return { data: new Uint8Array(shown.data.buffer, shown.data.byteOffset, shown.data.byteLength), width, height };
  } finally {
    for (const i of images) i.free();
    if (decoder.decoder) heif.heif_context_free(decoder.decoder);
    decoder.decoder = null;
  }
}
