// Written by `npm run openapi` (server/cli/studio-types.ts): the control plane's
// client types, one file per area, joined. Do not edit by hand.
import type * as Authentication from './authentication.ts';
import type * as Database from './database.ts';
import type * as Rows from './rows.ts';
import type * as SQL from './sql.ts';
import type * as Storage from './storage.ts';
import type * as Studio from './studio.ts';
import type * as Tables from './tables.ts';

export type paths = Authentication.paths & Database.paths & Rows.paths & SQL.paths & Storage.paths & Studio.paths & Tables.paths;
export type components = { schemas: Authentication.components['schemas'] & Database.components['schemas'] & Rows.components['schemas'] & SQL.components['schemas'] & Storage.components['schemas'] & Studio.components['schemas'] & Tables.components['schemas'] };
