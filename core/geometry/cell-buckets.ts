/**
 * Segments bucketed by the cells of a uniform grid their bounding boxes
 * cover, as flat arrays (a counting sort): the segments of cell c are
 * items[start[c]] to items[start[c + 1] - 1]. Shared by the edge index and
 * the plan audit's segment grid.
 */

/** The grid: its lower corner, cell size and cell counts across and down. */
export interface CellGrid {
  minX: number;
  minY: number;
  cell: number;
  nx: number;
  ny: number;
}

/** The cell column (or row) of coordinate v, clamped to the grid. */
export function cellOf(v: number, min: number, cell: number, count: number): number {
  const i = Math.floor((v - min) / cell);
  return i < 0 ? 0 : i >= count ? count - 1 : i;
}

/** The cells each of the n segments (ax, ay)-(bx, by) covers, bucketed. */
export function bucketSegments(
  g: CellGrid,
  n: number,
  ax: Float64Array,
  ay: Float64Array,
  bx: Float64Array,
  by: Float64Array,
): { start: Int32Array; items: Int32Array } {
  // Each segment's box of cells, found once for the counting and the filling.
  const box = new Int32Array(4 * n);
  const start = new Int32Array(g.nx * g.ny + 1);
  for (let e = 0; e < n; e++) {
    const x0 = cellOf(Math.min(ax[e], bx[e]), g.minX, g.cell, g.nx);
    const x1 = cellOf(Math.max(ax[e], bx[e]), g.minX, g.cell, g.nx);
    const y0 = cellOf(Math.min(ay[e], by[e]), g.minY, g.cell, g.ny);
    const y1 = cellOf(Math.max(ay[e], by[e]), g.minY, g.cell, g.ny);
    box[4 * e] = x0;
    box[4 * e + 1] = x1;
    box[4 * e + 2] = y0;
    box[4 * e + 3] = y1;
    for (let y = y0; y <= y1; y++) for (let x = x0; x <= x1; x++) start[y * g.nx + x + 1]++;
  }
  for (let i = 1; i < start.length; i++) start[i] += start[i - 1];
  const fill = start.slice();
  const items = new Int32Array(start[start.length - 1]);
  for (let e = 0; e < n; e++) {
    const x0 = box[4 * e];
    const x1 = box[4 * e + 1];
    for (let y = box[4 * e + 2]; y <= box[4 * e + 3]; y++)
      for (let x = x0; x <= x1; x++) items[fill[y * g.nx + x]++] = e;
  }
  return { start, items };
}
