/**
 * UUID version 7 (RFC 9562): 48-bit Unix time in milliseconds, then random
 * bits, so ids sort by creation time and index well. Monotonic within one
 * process: ids made in the same millisecond count up in the 12-bit field
 * after the version nibble (and borrow the next millisecond if it overflows).
 */
let lastMs = 0;
let seq = 0;

export function uuidv7(now: number = Date.now()): string {
  let ms = now;
  if (ms <= lastMs) {
    seq++;
    if (seq > 0xfff) {
      lastMs++;
      seq = 0;
    }
    ms = lastMs;
  } else {
    lastMs = ms;
    seq = (crypto.getRandomValues(new Uint16Array(1))[0] & 0x7ff) >>> 0;
  }
  const b = crypto.getRandomValues(new Uint8Array(16));
  // 48-bit big-endian timestamp.
  const hi = Math.floor(ms / 2 ** 16);
  b[0] = (hi >>> 24) & 0xff;
  b[1] = (hi >>> 16) & 0xff;
  b[2] = (hi >>> 8) & 0xff;
  b[3] = hi & 0xff;
  b[4] = (ms >>> 8) & 0xff;
  b[5] = ms & 0xff;
  b[6] = 0x70 | ((seq >>> 8) & 0x0f); // version 7 + top 4 bits of the counter
  b[7] = seq & 0xff;
  b[8] = 0x80 | (b[8] & 0x3f); // variant 10
  const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
