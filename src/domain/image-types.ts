/** The usual file extension of each image type a photo can have, for names a photo is saved or shared under. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'image/avif': 'avif',
  'image/tiff': 'tif',
  'image/heic': 'heic',
  'image/heif': 'heif',
  'image/bmp': 'bmp',
  'image/svg+xml': 'svg',
};

/** The extension for `mime`, or `fallback` for a type not listed. */
export const extensionFor = (mime: string, fallback = 'bin') => EXTENSIONS[mime.toLowerCase()] ?? fallback;
