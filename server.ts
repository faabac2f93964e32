#!/usr/bin/env node
/** `npm start`: the HTTP service (settings: api/config.ts). */
import { ConfigError } from './api/config.ts';
import { runServer } from './api/server.ts';

try {
  process.exitCode = await runServer();
} catch (e) {
  console.error(e instanceof ConfigError ? `tramline: ${e.message}` : e);
  process.exitCode = 1;
}
