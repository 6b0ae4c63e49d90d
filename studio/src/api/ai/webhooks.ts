// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/webhooks/{webhookId}": {
    /**
     * Trigger a deployed (or armed) workflow
     * @description No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. The JSON body becomes the run's variables; the run has 5 minutes.
     */
    post: operations["triggerWebhook"];
  };
  "/api/webhooks/{webhookId}/executions/{eid}/events": {
    /**
     * Send an event to one of the workflow's waiting executions
     * @description No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. As POST /api/workflows/{id}/executions/{eid}/events, for systems outside the project.
     */
    post: operations["sendWebhookExecutionEvent"];
  };
}

export interface operations {
  /**
   * Trigger a deployed (or armed) workflow
   * @description No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. The JSON body becomes the run's variables; the run has 5 minutes.
   */
  triggerWebhook: {
    parameters: {
      path: {
        webhookId: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["TriggerWebhookBody"];
      };
    };
    responses: {
      /** @description The run's result */
      200: {
        content: {
          "application/json": components["schemas"]["ExecutionResult"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["WebhookUnauthorized401"];
      403: components["responses"]["CodedError403"];
      404: components["responses"]["CodedError404"];
      500: components["responses"]["CodedError500"];
      503: components["responses"]["CodedError503"];
      504: components["responses"]["CodedError504"];
    };
  };
  /**
   * Send an event to one of the workflow's waiting executions
   * @description No apikey: the webhook secret as `Authorization: Bearer <secret>` or `?token=<secret>`. As POST /api/workflows/{id}/executions/{eid}/events, for systems outside the project.
   */
  sendWebhookExecutionEvent: {
    parameters: {
      path: {
        webhookId: string;
        eid: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["SendExecutionEventBody"];
      };
    };
    responses: {
      /** @description How many waits it ended */
      202: {
        content: {
          "application/json": components["schemas"]["SendExecutionEvent202"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["WebhookUnauthorized401"];
      404: components["responses"]["CodedError404"];
      409: components["responses"]["CodedError409"];
      500: components["responses"]["CodedError500"];
    };
  };
}
