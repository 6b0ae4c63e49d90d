// Shared exit handling for the command-line entry points: configuration errors
// and expected failures print one clear message, never a stack trace.
import { ConfigError } from '../config.ts';

export async function runCli(main: () => Promise<void>): Promise<void> {
  try {
    await main();
  } catch (err) {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof ConfigError ? 78 : 1);
  }
}
