/** The Drizzle database type shared by the PGlite and PostgreSQL drivers (and their transactions). */
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { schema } from './schema.ts';

export type Database = PgDatabase<PgQueryResultHKT, typeof schema>;
