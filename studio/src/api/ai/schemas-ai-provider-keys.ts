// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  ProviderKey: {
    /** Format: uuid */
    id: string;
    provider: string;
    masked_key: string;
    is_valid: boolean;
    last_validated_at: string | null;
    /** Format: date-time */
    created_at: string;
    /** Format: date-time */
    updated_at: string;
    [key: string]: unknown;
  };
  ListProviderKeys200: components["schemas"]["ProviderKey"][];
  ListModelCatalogue200: {
      provider: string;
      model: string;
      input_per_million: number;
      output_per_million: number;
      has_key: boolean;
    }[];
  PlatformProviders200: {
    providers: string[];
  };
  ValidateProviderKey200: {
    is_valid: boolean;
    error?: string;
  };
  PutProviderKeys200: components["schemas"]["ProviderKey"][];
  ValidateProviderKeyBody: {
    provider: string;
    api_key: string;
  };
  PutProviderKeysBody: {
    [key: string]: string | null;
  };
}
