/**
 * Build of the planning view (web/): two pages (the view and the sign-in
 * page) and the planner worker, into web/dist. The server serves web/dist;
 * web/build.ts rebuilds it when a source changed (npm start and npm test do
 * that first).
 */
import { resolve } from 'node:path';
import { defineConfig } from 'vite';

const root = import.meta.dirname;

export default defineConfig({
  root,
  base: '/web/',
  logLevel: 'warn',
  build: {
    outDir: resolve(root, 'dist'),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      input: { view: resolve(root, 'index.html'), login: resolve(root, 'login.html') },
    },
  },
  worker: { format: 'es' },
});
