// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/settings": {
    /** Every setting of the registry, with categories */
    get: operations["listSettings"];
    /**
     * Override settings (all or nothing)
     * @description Changes need the service-role key (403 otherwise).
     */
    put: operations["putSettings"];
  };
  "/api/settings/{key}": {
    /**
     * Return a setting to its default
     * @description Changes need the service-role key (403 otherwise).
     */
    delete: operations["resetSetting"];
  };
  "/api/settings/reset-category": {
    /**
     * Return a category to its defaults
     * @description Changes need the service-role key (403 otherwise).
     */
    post: operations["resetSettingsCategory"];
  };
}

export interface operations {
  /** Every setting of the registry, with categories */
  listSettings: {
    responses: {
      /** @description Settings (secrets masked) and categories */
      200: {
        content: {
          "application/json": components["schemas"]["ListSettings200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Override settings (all or nothing)
   * @description Changes need the service-role key (403 otherwise).
   */
  putSettings: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["PutSettingsBody"];
      };
    };
    responses: {
      /** @description The keys changed */
      200: {
        content: {
          "application/json": components["schemas"]["PutSettings200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Return a setting to its default
   * @description Changes need the service-role key (403 otherwise).
   */
  resetSetting: {
    parameters: {
      path: {
        /** @description A setting key */
        key: string;
      };
    };
    responses: {
      /** @description The key and its default */
      200: {
        content: {
          "application/json": components["schemas"]["ResetSetting200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Return a category to its defaults
   * @description Changes need the service-role key (403 otherwise).
   */
  resetSettingsCategory: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["ResetSettingsCategoryBody"];
      };
    };
    responses: {
      /** @description The keys reset */
      200: {
        content: {
          "application/json": components["schemas"]["ResetSettingsCategory200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
}
