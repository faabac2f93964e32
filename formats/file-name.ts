/**
 * Names of uploaded files made safe to store, list and send back in a
 * Content-Disposition: the last path component only (no folders, no `..`),
 * no control characters (C0, DEL, C1), no bidirectional controls (U+202A to
 * U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C: a right-to-left
 * override can make `evil\u202Etxt.exe` show as `evilexe.txt`), no
 * zero-width or line separator characters, none of `"*:<>?|` (replaced by
 * `_`), no leading dots or trailing dots and spaces; NFC, at most 255
 * characters. What is left is a display name; null when nothing is.
 */

/** Characters removed outright. */
const REMOVED = /[\p{Cc}\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/gu;

export function safeFileName(name: string | null | undefined): string | null {
  if (!name) return null;
  let s = name.normalize('NFC').replace(REMOVED, '');
  s = s.replace(/^.*[\\/]/s, ''); // the last path component
  s = s.replace(/\.{2,}/g, '.'); // no `..` anywhere
  s = s.replace(/["*:<>?|]/g, '_');
  s = s.replace(/^[\s.]+/u, '').replace(/[\s.]+$/u, '');
  s = s.replace(/\s+/gu, ' ');
  if (!s) return null;
  const chars = [...s];
  return chars.length > 255
    ? chars
        .slice(0, 255)
        .join('')
        .replace(/[\s.]+$/u, '') || null
    : s;
}
