/**
 * File names for downloads: what a photo is saved under, and the Content-Disposition header
 * (RFC 6266) that carries it, with an ASCII fallback and the UTF-8 name (RFC 5987/8187).
 */

import { extensionFor } from '@domain/image-types';
import { withoutControlCharacters } from '../../lib/control-characters';
import { cutText } from '../../lib/cut-text';

const MAX_NAME = 180;
/** Half of a character past U+FFFF without its other half. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * A name safe to hand to a file system: no folders (the last segment after / or \), no control
 * characters, quotes or characters Windows refuses, no leading dots (hidden files, '..'),
 * trimmed and at most 180 characters (the extension kept). Empty when nothing usable is left.
 */
export function safeFileName(raw: string | null | undefined): string {
  const base = (raw ?? '').split(/[\\/]/).pop() ?? '';
  let name = withoutControlCharacters(base)
    .replace(/["'`<>:|?*;\u2028\u2029]/g, '')
    .trim();
  name = name.replace(/^[.\s]+/, '').replace(/[.\s]+$/, '');
  if (name.length > MAX_NAME) {
    const dot = name.lastIndexOf('.');
    const ext = dot > 0 && name.length - dot <= 6 ? name.slice(dot) : '';
    name = cutText(name, MAX_NAME - ext.length).trim() + ext;
  }
  return name;
}

/** `name` with `ext` as its extension (replacing the one it has, if different). */
function withExtension(name: string, ext: string): string {
  const m = /^(.*)\.([A-Za-z0-9]{1,5})$/.exec(name);
  const stem = m ? m[1]! : name;
  return `${stem || 'photo'}.${ext}`;
}

/**
 * What a download is saved under: the uploaded file's own name for the original; the photo's
 * name with its type's extension otherwise (an edited version is a JPEG whatever was uploaded).
 */
export function downloadFileName(photo: {
  name: string;
  fileName: string | null;
  mime: string;
  edited?: boolean;
}): string {
  const ext = extensionFor(photo.mime);
  const uploaded = safeFileName(photo.fileName);
  if (uploaded && !photo.edited) {
    // Keep the uploaded name as it was when its extension already fits the type (e.g. IMG_1.JPG).
    const m = /\.([A-Za-z0-9]{1,5})$/.exec(uploaded);
    const same = m && (m[1]!.toLowerCase() === ext || (ext === 'jpg' && m[1]!.toLowerCase() === 'jpeg'));
    return same ? uploaded : withExtension(uploaded, ext);
  }
  const stem = safeFileName(uploaded ? uploaded.replace(/\.[A-Za-z0-9]{1,5}$/, '') : photo.name) || 'photo';
  return withExtension(photo.edited ? `${stem} (edited)` : stem, ext);
}

/**
 * `attachment; filename="<ASCII fallback>"; filename*=UTF-8''<percent-encoded>`: old clients
 * read the fallback (non-ASCII as '_'), current browsers the UTF-8 name.
 */
export function contentDisposition(fileName: string): string {
  // Well-formed whatever the caller passed: a lone surrogate would make encodeURIComponent throw.
  const safe = safeFileName(fileName).replace(LONE_SURROGATE, '\uFFFD') || 'photo';
  const ascii = safe.replace(/[^\x20-\x7e]/g, '_').replace(/[\\%]/g, '_');
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
