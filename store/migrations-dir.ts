/** Where the committed migrations live (shared by the store and the cluster creator). */
import { fileURLToPath } from 'node:url';

export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url));
