// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/ai-provider-keys": {
    /** List provider keys (masked) */
    get: operations["listProviderKeys"];
    /**
     * Store several provider keys (all or nothing)
     * @description Changes need the service-role key (403 otherwise).
     */
    put: operations["putProviderKeys"];
    /**
     * Store a provider key
     * @description Changes need the service-role key (403 otherwise).
     */
    post: operations["putProviderKey"];
  };
  "/api/ai-provider-keys/{provider}": {
    /**
     * Remove a provider key
     * @description Changes need the service-role key (403 otherwise).
     */
    delete: operations["deleteProviderKey"];
  };
  "/api/ai-provider-keys/models": {
    /**
     * The models the router prices, by provider
     * @description Each model (a name prefix) with its price per million tokens in and out, and whether a key for its provider is stored (has_key; the platform's own keys are told by platform_supported).
     */
    get: operations["listModelCatalogue"];
  };
  "/api/ai-provider-keys/platform_supported": {
    /** Providers the platform holds a key for */
    get: operations["platformProviders"];
  };
  "/api/ai-provider-keys/validate": {
    /** Check a key with its vendor; nothing is stored */
    post: operations["validateProviderKey"];
  };
}

export interface operations {
  /** List provider keys (masked) */
  listProviderKeys: {
    responses: {
      /** @description Key records */
      200: {
        content: {
          "application/json": components["schemas"]["ListProviderKeys200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Store several provider keys (all or nothing)
   * @description Changes need the service-role key (403 otherwise).
   */
  putProviderKeys: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["PutProviderKeysBody"];
      };
    };
    responses: {
      /** @description The stored records */
      200: {
        content: {
          "application/json": components["schemas"]["PutProviderKeys200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Store a provider key
   * @description Changes need the service-role key (403 otherwise).
   */
  putProviderKey: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["ValidateProviderKeyBody"];
      };
    };
    responses: {
      /** @description Replaced */
      200: {
        content: {
          "application/json": components["schemas"]["ProviderKey"];
        };
      };
      /** @description Stored */
      201: {
        content: {
          "application/json": components["schemas"]["ProviderKey"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Remove a provider key
   * @description Changes need the service-role key (403 otherwise).
   */
  deleteProviderKey: {
    parameters: {
      path: {
        /** @description openai, anthropic, gemini or openrouter */
        provider: string;
      };
    };
    responses: {
      /** @description Removed */
      204: {
        content: never;
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * The models the router prices, by provider
   * @description Each model (a name prefix) with its price per million tokens in and out, and whether a key for its provider is stored (has_key; the platform's own keys are told by platform_supported).
   */
  listModelCatalogue: {
    responses: {
      /** @description The catalogue */
      200: {
        content: {
          "application/json": components["schemas"]["ListModelCatalogue200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Providers the platform holds a key for */
  platformProviders: {
    responses: {
      /** @description Providers */
      200: {
        content: {
          "application/json": components["schemas"]["PlatformProviders200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
  /** Check a key with its vendor; nothing is stored */
  validateProviderKey: {
    requestBody: {
      content: {
        "application/json": components["schemas"]["ValidateProviderKeyBody"];
      };
    };
    responses: {
      /** @description The verdict */
      200: {
        content: {
          "application/json": components["schemas"]["ValidateProviderKey200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      500: components["responses"]["Error500"];
    };
  };
}
