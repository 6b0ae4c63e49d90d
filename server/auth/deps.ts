// What every /auth/v1 router is built from.
import type pg from 'pg';
import type { Config } from '../config.ts';
import type { Keys } from '../keys.ts';

export type AuthDeps = { config: Config; keys: Keys; pool: pg.Pool };
