import exifr from 'exifr';

/**
 * exifr (7.1.3, the last release) with three of its parsers' hazards closed. It runs on the HTTP
 * thread, inside every upload, so its cost is every user's wait:
 *
 * - An IFD pointer (ExifIFD 0x8769, GPS 0x8825, Interop 0xA005) written as a list of values, not
 *   one offset, was used as the block's offset as it was: the list became a string that grew by
 *   concatenation and was parsed back to a number for each of the ~19,000 entries read at offset 0
 *   (the byte-order mark read as a count). A 64 KB EXIF block in a JPEG held the thread 2 s, a 60 KB
 *   PNG eXIf chunk 5 s, and it grows with the chunk (a 400 KB TIFF: 12 s). Such a block is now
 *   skipped, as exifr skips any block it cannot read.
 * - A PNG's iCCP chunk was inflated whether or not ICC was asked for, in one synchronous
 *   `inflateSync` with no output limit: a 1 MB chunk of deflated zeros took 1 GB (2.1 GB of RSS, 1.7 s
 *   of the thread), and one of 4 MB would pass Node's largest buffer. The profile is now read only
 *   when asked for (never, here: `EXIF_PICK` names no ICC field; libvips reads the profile itself).
 *
 * - Every value of a picked tag was read, into an array or a string, however many the entry said:
 *   a 48 MB TIFF whose 13 picked tags each pointed at 12 million LONGs held the thread 2.1 s and
 *   took 1.1 GB (a TIFF, or a HEIF's EXIF item, is read whole; a JPEG's EXIF is at most 64 KB). The
 *   gallery keeps one number or a text of at most 200 characters (a GPS position: three
 *   rationals), so a tag of more than `MAX_TAG_VALUES` values is now skipped unread.
 *
 * Patched through exifr's own parser registries, once, on first use.
 */
export const MAX_TAG_VALUES = 4096;

interface TiffParser {
  chunk: { getUint32(offset: number): number };
  parseBlock(this: TiffParser, offset: unknown, blockKey: string): unknown;
  parseTag(this: TiffParser, offset: number, tag: number, blockKey: string): unknown;
}
interface PngParser {
  options: { icc: { enabled: boolean } };
  findIcc(this: PngParser): Promise<void>;
}

let guarded = false;

export function guardedExifr(): typeof exifr {
  if (guarded) return exifr;
  const tiff = (exifr.segmentParsers.get('tiff') as { prototype: TiffParser } | undefined)?.prototype;
  const png = (exifr.fileParsers.get('png') as { prototype: PngParser } | undefined)?.prototype;
  if (!tiff?.parseBlock || !tiff.parseTag || !png?.findIcc)
    throw new Error('exifr: parsers not where exifr-guards expects them');
  const parseBlock = tiff.parseBlock;
  tiff.parseBlock = function (offset, blockKey) {
    if (!Number.isSafeInteger(offset)) throw new Error(`EXIF: the ${blockKey} pointer is not one offset`);
    return parseBlock.call(this, offset, blockKey);
  };
  const parseTag = tiff.parseTag;
  tiff.parseTag = function (offset, tag, blockKey) {
    // The entry: tag (2 bytes), type (2), count (4), value or its offset (4).
    if (this.chunk.getUint32(offset + 4) > MAX_TAG_VALUES) return undefined;
    return parseTag.call(this, offset, tag, blockKey);
  };
  const findIcc = png.findIcc;
  png.findIcc = function () {
    return this.options.icc.enabled ? findIcc.call(this) : Promise.resolve();
  };
  guarded = true;
  return exifr;
}
