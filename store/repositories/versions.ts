/**
 * Conditional writes (optimistic concurrency): the versions a write
 * accepts. `If-Match` may list several ETags; the write goes ahead when
 * the stored version is any of them (RFC 9110, 13.1.1).
 */
import { eq, inArray, type SQL, type SQLWrapper } from 'drizzle-orm';

/** One version, or any of several. */
export type ExpectedVersion = number | readonly number[];

/** Whether `version` is one the write accepts (any version without an expectation). */
export function versionMatches(expected: ExpectedVersion | undefined, version: number): boolean {
  if (expected === undefined) return true;
  return typeof expected === 'number' ? expected === version : expected.includes(version);
}

/** The condition on a version column; undefined (no condition) without an expectation. */
export function atVersion(column: SQLWrapper, expected: ExpectedVersion | undefined): SQL | undefined {
  if (expected === undefined) return undefined;
  if (typeof expected === 'number') return eq(column as never, expected);
  return inArray(column as never, [...expected]);
}
