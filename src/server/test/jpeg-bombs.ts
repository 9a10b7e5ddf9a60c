/**
 * Hostile JPEGs built marker by marker (no encoder writes them): for the tests of
 * `jpegDecodeRefusal` (lib/image-type.ts) and the upload and filter paths that use it.
 */

/**
 * A progressive JPEG of W x H pixels (within the 100 MP cap) whose first scan holds every DC
 * coefficient and whose `scans` AC scans are each one EOB run over the whole image (~100 bytes a
 * scan). libjpeg walks every block of the image once per scan, and a progressive decode holds the
 * whole image's coefficients (128 bytes per 8x8 block per component) before a pixel is made.
 */
export function progressiveScanBomb(
  W: number,
  H: number,
  scans: number,
  comps = 1,
  opts: {
    /**
     * After the DC scan: an empty comment, then FF 00 and two bytes spanning every AC scan. A walk
     * that reads FF 00 as a segment with a length jumps over them; libjpeg discards FF 00 as data,
     * looks on, and reads them all.
     */
    hideScans?: boolean;
  } = {},
): Buffer {
  const parts: Buffer[] = [];
  const seg = (marker: number, body: Buffer) => {
    const l = Buffer.alloc(4);
    l.writeUInt16BE(marker, 0);
    l.writeUInt16BE(body.length + 2, 2);
    parts.push(l, body);
  };
  parts.push(Buffer.from([0xff, 0xd8]));
  seg(0xffdb, Buffer.concat([Buffer.from([0x00]), Buffer.alloc(64, 1)]));
  const sof = Buffer.alloc(6 + 3 * comps);
  sof[0] = 8;
  sof.writeUInt16BE(H, 1);
  sof.writeUInt16BE(W, 3);
  sof[5] = comps;
  for (let c = 0; c < comps; c++) {
    sof[6 + 3 * c] = c + 1;
    sof[7 + 3 * c] = 0x11;
    sof[8 + 3 * c] = 0;
  }
  seg(0xffc2, sof);
  const counts = (n1: number) => {
    const c = Buffer.alloc(16);
    c[0] = n1;
    return c;
  };
  // DC table 0: category 0 as the one 1-bit code; AC table 0: EOBRUN 2^14 (+14 bits) as the one 1-bit code.
  seg(
    0xffc4,
    Buffer.concat([
      Buffer.from([0x00]),
      counts(1),
      Buffer.from([0x00]),
      Buffer.from([0x10]),
      counts(1),
      Buffer.from([0xe0]),
    ]),
  );
  const blocks = Math.ceil(W / 8) * Math.ceil(H / 8);
  seg(0xffda, Buffer.from([comps, ...Array.from({ length: comps }, (_, c) => [c + 1, 0x00]).flat(), 0, 0, 0x00]));
  parts.push(Buffer.alloc(Math.ceil((blocks * comps) / 8), 0));
  const bits: number[] = [];
  for (let left = blocks; left > 0; left -= 32767) {
    const extra = Math.max(0, Math.min(left, 32767) - 16384);
    bits.push(0);
    for (let i = 13; i >= 0; i--) bits.push((extra >> i) & 1);
  }
  while (bits.length % 8) bits.push(1);
  const data: number[] = [];
  for (let i = 0; i < bits.length; i += 8) {
    let b = 0;
    for (let j = 0; j < 8; j++) b = (b << 1) | bits[i + j]!;
    data.push(b);
    if (b === 0xff) data.push(0);
  }
  const ac = Buffer.from(data);
  const acParts: Buffer[] = [];
  for (let s = 0; s < scans; s++) {
    const k = 1 + (s % 63);
    const sos = Buffer.from([0xff, 0xda, 0x00, 0x08, 1, 1 + (Math.floor(s / 63) % comps), 0x00, k, k, 0x00]);
    acParts.push(sos, ac);
  }
  const acBytes = Buffer.concat(acParts);
  if (opts.hideScans) {
    if (acBytes.length + 2 > 0xffff) throw new Error('too many scans to hide behind one length');
    const jump = Buffer.from([0xff, 0x00, 0, 0]);
    jump.writeUInt16BE(acBytes.length + 2, 2);
    parts.push(Buffer.from([0xff, 0xfe, 0x00, 0x02]), jump);
  }
  parts.push(acBytes, Buffer.from([0xff, 0xd9]));
  return Buffer.concat(parts);
}
