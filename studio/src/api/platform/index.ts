// Written by `npm run openapi` (server/cli/studio-types.ts): the control plane's
// client types, one file per area, joined. Do not edit by hand.
import type * as APIkeys from './api-keys.ts';
import type * as Authentication from './authentication.ts';
import type * as Buckets from './buckets.ts';
import type * as Columns from './columns.ts';
import type * as Cron from './cron.ts';
import type * as Database from './database.ts';
import type * as Extensions from './extensions.ts';
import type * as OAuthapps from './oauth-apps.ts';
import type * as Objectactions from './object-actions.ts';
import type * as Objects from './objects.ts';
import type * as Observe from './observe.ts';
import type * as Operators from './operators.ts';
import type * as Policies from './policies.ts';
import type * as Queues from './queues.ts';
import type * as Rows from './rows.ts';
import type * as SQL from './sql.ts';
import type * as Schemaobjects from './schema-objects.ts';
import type * as Signin from './sign-in.ts';
import type * as Signingkeys from './signing-keys.ts';
import type * as Snippets from './snippets.ts';
import type * as Table from './table.ts';
import type * as Tables from './tables.ts';
import type * as Users from './users.ts';

export type paths = APIkeys.paths & Authentication.paths & Buckets.paths & Columns.paths & Cron.paths & Database.paths & Extensions.paths & OAuthapps.paths & Objectactions.paths & Objects.paths & Observe.paths & Operators.paths & Policies.paths & Queues.paths & Rows.paths & SQL.paths & Schemaobjects.paths & Signin.paths & Signingkeys.paths & Snippets.paths & Table.paths & Tables.paths & Users.paths;
export type components = { schemas: APIkeys.components['schemas'] & Authentication.components['schemas'] & Buckets.components['schemas'] & Columns.components['schemas'] & Cron.components['schemas'] & Database.components['schemas'] & Extensions.components['schemas'] & OAuthapps.components['schemas'] & Objectactions.components['schemas'] & Objects.components['schemas'] & Observe.components['schemas'] & Operators.components['schemas'] & Policies.components['schemas'] & Queues.components['schemas'] & Rows.components['schemas'] & SQL.components['schemas'] & Schemaobjects.components['schemas'] & Signin.components['schemas'] & Signingkeys.components['schemas'] & Snippets.components['schemas'] & Table.components['schemas'] & Tables.components['schemas'] & Users.components['schemas'] };
