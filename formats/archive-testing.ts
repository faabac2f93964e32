/**
 * Test support: zips written byte by byte, so tests can make the archives
 * a zip library refuses to write: zip bombs (one deflated stream of zeros
 * named by many central directory entries; one file of hundreds of MB of
 * zeros; headers that understate what an entry unpacks to) and encrypted
 * or damaged entries. Zeros are deflated in 1 MB pieces, so building a
 * 512 MB bomb holds 1 MB of zeros, not 512.
 */
import { constants, crc32, createDeflateRaw } from 'node:zlib';

export interface RawEntry {
  name: string;
  /** The packed bytes. */
  packed: Uint8Array;
  /** What the headers declare it unpacks to. */
  size: number;
  crc: number;
  /** 8 deflate (default), 0 stored. */
  method?: number;
  flags?: number;
}

/** `size` zero bytes deflated (level 9), with their CRC-32. */
export async function deflatedZeros(size: number): Promise<{ packed: Buffer; size: number; crc: number }> {
  const piece = Buffer.alloc(Math.min(size, 1 << 20));
  const z = createDeflateRaw({ level: constants.Z_BEST_COMPRESSION });
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const done = new Promise<void>((resolve, reject) => {
    z.on('end', resolve);
    z.on('error', reject);
  });
  let crc = 0;
  for (let left = size; left > 0; ) {
    const n = Math.min(left, piece.length);
    const chunk = n === piece.length ? piece : piece.subarray(0, n);
    crc = crc32(chunk, crc);
    if (!z.write(chunk)) await new Promise((r) => z.once('drain', r));
    left -= n;
  }
  z.end();
  await done;
  return { packed: Buffer.concat(out), size, crc: crc >>> 0 };
}

/**
 * A zip of `entries`. With `shareData`, only the first entry's local header
 * and data are written and every central directory entry points at them
 * (each under its own name): the overlapping-entries bomb.
 */
export function buildZip(entries: RawEntry[], opts: { shareData?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const enc = new TextEncoder();
  entries.forEach((e, i) => {
    const name = Buffer.from(enc.encode(e.name));
    const method = e.method ?? 8;
    const flags = (e.flags ?? 0) | 0x800;
    let at = offset;
    if (!opts.shareData || i === 0) {
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      local.writeUInt16LE(20, 4);
      local.writeUInt16LE(flags, 6);
      local.writeUInt16LE(method, 8);
      local.writeUInt32LE(e.crc >>> 0, 14);
      local.writeUInt32LE(e.packed.length, 18);
      local.writeUInt32LE(e.size, 22);
      local.writeUInt16LE(name.length, 26);
      parts.push(local, name, Buffer.from(e.packed));
      offset += 30 + name.length + e.packed.length;
    } else at = 0;
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(flags, 8);
    c.writeUInt16LE(method, 10);
    c.writeUInt32LE(e.crc >>> 0, 16);
    c.writeUInt32LE(e.packed.length, 20);
    c.writeUInt32LE(e.size, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(at, 42);
    central.push(c, name);
  });
  const cd = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cd, end]);
}

/** The overlapping-entries bomb: `count` entries naming one deflated stream of `size` zeros. */
export async function overlapBomb(count: number, size: number): Promise<Buffer> {
  const z = await deflatedZeros(size);
  return buildZip(
    Array.from({ length: count }, (_, i) => ({ name: `zeros-${i}.shp`, ...z })),
    { shareData: true },
  );
}

/** The plain bomb: one file of `size` zeros. */
export async function plainBomb(size: number, name = 'zeros.shp'): Promise<Buffer> {
  return buildZip([{ name, ...(await deflatedZeros(size)) }]);
}

/** One file of `size` zeros whose headers declare `declared` bytes. */
export async function understatedBomb(size: number, declared: number, name = 'small.shp'): Promise<Buffer> {
  const z = await deflatedZeros(size);
  return buildZip([{ name, packed: z.packed, size: declared, crc: 0 }]);
}
