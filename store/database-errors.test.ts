/** Database errors told without their values. */
import { describe, expect, it } from 'vitest';
import { databaseError, safeErrorText, statementName } from './database-errors.ts';

describe('statementName', () => {
  it('names the kind and first table of a statement, never its values', () => {
    expect(statementName('insert into "users" ("id", "email") values ($1, $2)')).toBe('insert into "users"');
    expect(statementName('update "api_keys" set "name" = $1 where "id" = $2')).toBe('update "api_keys"');
    expect(statementName('delete from "settings" where "id" = $1')).toBe('delete from "settings"');
    expect(statementName('select "id", "email" from "users" where "email" = $1')).toBe('select "users"');
    expect(statementName("select 'secret@example.org'")).toBe('select');
    expect(statementName('vacuum')).toBe('statement');
  });
});

describe('safeErrorText', () => {
  it('tells a failed query by its SQL state and statement only', () => {
    const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), {
      code: '22021',
      severity: 'ERROR',
      detail: 'Key (email)=(secret@example.org)',
    });
    const err = Object.assign(
      new Error(
        'Failed query: insert into "users" ("email") values ($1)\nparams: secret@example.org,scrypt$1$2',
      ),
      { query: 'insert into "users" ("email") values ($1)', params: ['secret@example.org'], cause },
    );
    expect(databaseError(err)).toEqual({ sqlState: '22021', statement: 'insert into "users"' });
    const text = safeErrorText(err);
    expect(text).toBe('Database statement failed (SQL state 22021): insert into "users"');
    expect(safeErrorText(new Error('plain'))).toBe('Error: plain');
  });
});
