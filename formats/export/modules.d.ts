/** Types of the CommonJS writers the exports use that ship none of their own. */
declare module 'dbf' {
  /** A dBASE III table from rows and field definitions; text is written one byte per UTF-16 code unit. */
  export function structure(
    rows: Record<string, string | number | boolean | null>[],
    meta?: { name: string; type: string; size: number }[],
  ): DataView;
}
