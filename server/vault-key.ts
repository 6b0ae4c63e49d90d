// The Vault's key (sql/0118): derived from VAULT_KEY when set, else from
// AI_MASTER_KEY, so it is never stored in the database; pgbase's sessions
// start with it as the setting pgbase.vault_key (db/pool.ts). Hex, so it
// travels as a startup option as it is.
import { createHmac } from 'node:crypto';
import type { Config } from './config.ts';

export function vaultKey(config: Pick<Config, 'VAULT_KEY'>, aiMasterKey: string): string {
  return createHmac('sha256', config.VAULT_KEY ?? aiMasterKey).update('pgbase vault key v1').digest('hex');
}
