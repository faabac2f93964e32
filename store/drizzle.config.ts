/** drizzle-kit configuration: `npx drizzle-kit generate --config store/drizzle.config.ts` writes store/migrations/. */
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'postgresql',
  schema: './store/schema.ts',
  out: './store/migrations',
});
