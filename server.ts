#!/usr/bin/env node
/** `npm start`: the HTTP service (settings: api/config.ts). */
import { restartWithServerSettings } from './api/process-settings.ts';

// Before the server is loaded: its V8 options and malloc settings (api/process-settings.ts).
restartWithServerSettings();
const { ConfigError } = await import('./api/config.ts');
const { runServer } = await import('./api/server.ts');

try {
  process.exitCode = await runServer();
} catch (e) {
  console.error(e instanceof ConfigError ? `tramline: ${e.message}` : e);
  process.exitCode = 1;
}
