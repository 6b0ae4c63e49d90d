// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface Schemas {
  ListSettings200: {
    settings: components["schemas"]["Setting"][];
    categories: components["schemas"]["GetUsage200"][];
  };
  PutSettings200: {
    updated: unknown[];
  };
  ResetSetting200: {
    key: string;
    default: string;
  };
  ResetSettingsCategory200: {
    category: string;
    reset: string[];
  };
  PutSettingsBody: {
    settings: {
      [key: string]: unknown;
    };
  };
  ResetSettingsCategoryBody: {
    category: string;
  };
}
