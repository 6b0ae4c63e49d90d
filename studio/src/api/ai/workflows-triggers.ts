// Written by `npm run openapi` (server/cli/ai-types.ts) from docs/openapi.json's AI paths. Do not edit by hand.
import type { components } from './components.ts';

export interface paths {
  "/api/workflows/{id}/triggers": {
    /** List the workflow's schedule, row-change and queue triggers */
    get: operations["listWorkflowTriggers"];
    /**
     * Start the workflow on a schedule, a row change or a queue message
     * @description Runs start only while the workflow is deployed, with its active version, acting as its owner. A schedule is cron syntax in UTC or 'N seconds' (the workflow's owner may add one); row_change (input: {type, table, schema, record, old_record}; condition: a JSON object the change must contain) and queue (a pgmq queue: one run per message, archived when it succeeds, visible again when it fails, dead-lettered after max_attempts) take the service-role key. Each run draws from WORKFLOW_TRIGGERED_RUNS_PER_MINUTE.
     */
    post: operations["addWorkflowTrigger"];
  };
  "/api/workflows/{id}/triggers/{triggerId}": {
    /** Remove a trigger */
    delete: operations["removeWorkflowTrigger"];
  };
  "/api/workflows/{id}/arm": {
    /** Let the webhook run the draft once, for a short window */
    post: operations["armWorkflow"];
  };
  "/api/workflows/{id}/versions": {
    /** List deployed versions */
    get: operations["listWorkflowVersions"];
  };
  "/api/workflows/{id}/versions/{version}": {
    /** Read a deployed version's graph */
    get: operations["getWorkflowVersion"];
  };
  "/api/workflows/{id}/versions/{version}/activate": {
    /** Make a deployed version the active one */
    post: operations["activateWorkflowVersion"];
  };
  "/api/workflows/{id}/execute": {
    /**
     * Run the draft graph
     * @description The body's variables (or legacy input) are the run's input; mode async queues it (202). At most WORKFLOW_EXECUTIONS_PER_MINUTE (20) executions a minute per caller: 429 beyond.
     */
    post: operations["executeWorkflow"];
  };
  "/api/workflows/{id}/execute/stream": {
    /**
     * Run the draft graph, streaming block events
     * @description Failures arrive as an event of type error; only a timeout carries error_code EXECUTION_TIMEOUT. At most WORKFLOW_EXECUTIONS_PER_MINUTE (20) executions a minute per caller: 429 beyond.
     */
    post: operations["streamWorkflowExecution"];
  };
}

export interface operations {
  /** List the workflow's schedule, row-change and queue triggers */
  listWorkflowTriggers: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Triggers, oldest first */
      200: {
        content: {
          "application/json": components["schemas"]["ListWorkflowTriggers200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Start the workflow on a schedule, a row change or a queue message
   * @description Runs start only while the workflow is deployed, with its active version, acting as its owner. A schedule is cron syntax in UTC or 'N seconds' (the workflow's owner may add one); row_change (input: {type, table, schema, record, old_record}; condition: a JSON object the change must contain) and queue (a pgmq queue: one run per message, archived when it succeeds, visible again when it fails, dead-lettered after max_attempts) take the service-role key. Each run draws from WORKFLOW_TRIGGERED_RUNS_PER_MINUTE.
   */
  addWorkflowTrigger: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody: {
      content: {
        "application/json": components["schemas"]["AddWorkflowTriggerBody"];
      };
    };
    responses: {
      /** @description The trigger */
      201: {
        content: {
          "application/json": components["schemas"]["AddWorkflowTrigger201"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Remove a trigger */
  removeWorkflowTrigger: {
    parameters: {
      path: {
        id: string;
        /** @description The trigger's id */
        triggerId: string;
      };
    };
    responses: {
      /** @description Deleted */
      200: {
        content: {
          "application/json": components["schemas"]["Deleted"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Let the webhook run the draft once, for a short window */
  armWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Armed */
      200: {
        content: {
          "application/json": components["schemas"]["ArmWorkflow200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** List deployed versions */
  listWorkflowVersions: {
    parameters: {
      path: {
        id: string;
      };
    };
    responses: {
      /** @description Versions, newest first */
      200: {
        content: {
          "application/json": components["schemas"]["ListWorkflowVersions200"];
        };
      };
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Read a deployed version's graph */
  getWorkflowVersion: {
    parameters: {
      path: {
        id: string;
        /** @description A version number */
        version: string;
      };
    };
    responses: {
      /** @description The version */
      200: {
        content: {
          "application/json": components["schemas"]["GetWorkflowVersion200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /** Make a deployed version the active one */
  activateWorkflowVersion: {
    parameters: {
      path: {
        id: string;
        /** @description A version number */
        version: string;
      };
    };
    responses: {
      /** @description Activated */
      200: {
        content: {
          "application/json": components["schemas"]["ActivateWorkflowVersion200"];
        };
      };
      400: components["responses"]["Error400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["Error404"];
      500: components["responses"]["Error500"];
    };
  };
  /**
   * Run the draft graph
   * @description The body's variables (or legacy input) are the run's input; mode async queues it (202). At most WORKFLOW_EXECUTIONS_PER_MINUTE (20) executions a minute per caller: 429 beyond.
   */
  executeWorkflow: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ExecuteWorkflowBody"];
      };
    };
    responses: {
      /** @description The run's result */
      200: {
        content: {
          "application/json": components["schemas"]["ExecutionResult"];
        };
      };
      /** @description Queued */
      202: {
        content: {
          "application/json": components["schemas"]["ExecuteWorkflow202"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["CodedError404"];
      429: components["responses"]["CodedError429"];
      500: components["responses"]["Error500"];
      503: components["responses"]["CodedError503"];
      504: components["responses"]["CodedError504"];
    };
  };
  /**
   * Run the draft graph, streaming block events
   * @description Failures arrive as an event of type error; only a timeout carries error_code EXECUTION_TIMEOUT. At most WORKFLOW_EXECUTIONS_PER_MINUTE (20) executions a minute per caller: 429 beyond.
   */
  streamWorkflowExecution: {
    parameters: {
      path: {
        id: string;
      };
    };
    requestBody?: {
      content: {
        "application/json": components["schemas"]["ExecuteWorkflowBody"];
      };
    };
    responses: {
      /** @description Server-sent events, one JSON object per `data:` line with its number as `id:`; leaving does not stop the run (GET …/executions/{eid}/events picks it up again) */
      200: {
        content: {
          "text/event-stream": components["schemas"]["WorkflowEvent"];
        };
      };
      400: components["responses"]["CodedError400"];
      401: components["responses"]["Error401"];
      403: components["responses"]["Error403"];
      404: components["responses"]["CodedError404"];
      429: components["responses"]["CodedError429"];
      500: components["responses"]["Error500"];
    };
  };
}
