// What the standard OTEL_* variables turn on, and how a SQL statement is
// named in its span (its verb and the first table or function it names,
// never a value).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { statementSummary } from '../../server/telemetry/sql-spans.ts';
import { tracing } from '../../server/telemetry/state.ts';
import { startTracing, tracingPlan } from '../../server/telemetry/tracing.ts';

describe('tracingPlan', () => {
  it('is off without an OTLP endpoint, with OTEL_SDK_DISABLED, or with another exporter', () => {
    assert.deepEqual(tracingPlan({}), { off: 'no OTLP endpoint' });
    assert.deepEqual(tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }), { off: 'OTEL_SDK_DISABLED' });
    assert.deepEqual(tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), { off: 'OTEL_TRACES_EXPORTER=none' });
  });

  it('turns on from either endpoint variable, protobuf by default, json when asked, the sampler by its standard name', () => {
    const general = tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    assert.ok(!('off' in general) && general.protocol === 'http/protobuf' && general.samplerName === 'parentbased_always_on');
    const traces = tracingPlan({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/v1/traces', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' });
    assert.ok(!('off' in traces) && traces.protocol === 'http/json' && traces.samplerName === 'traceidratio');
  });

  it('refuses what it cannot do, saying which variable', () => {
    assert.throws(() => tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4317', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }), /OTEL_EXPORTER_OTLP_PROTOCOL: http\/protobuf or http\/json/);
    assert.throws(() => tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'sometimes' }), /OTEL_TRACES_SAMPLER/);
    assert.throws(() => tracingPlan({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }), /OTEL_TRACES_SAMPLER_ARG/);
  });

  it('refuses a batch or limit variable that is not a positive integer before it sets anything up', () => {
    const log = pino({ level: 'silent' });
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
    assert.throws(() => startTracing({ ...base, OTEL_BSP_MAX_QUEUE_SIZE: '-1' }, log), /OTEL_BSP_MAX_QUEUE_SIZE: a positive integer/);
    assert.throws(() => startTracing({ ...base, OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: 'many' }, log), /OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT: a positive integer/);
    assert.equal(tracing.on, false, 'a refused start leaves tracing off');
    startTracing(base, log);
    assert.equal(tracing.on, true, 'and a corrected one still starts it');
  });
});

describe('statementSummary', () => {
  const name = (sql: string) => statementSummary(sql).summary;
  it('names a statement by its verb and what it works on', () => {
    assert.equal(name('select ai.begin_run($1, $2)'), 'select ai.begin_run');
    assert.equal(name('insert into ai.run_events (seq, event) values ($1, $2)'), 'insert ai.run_events');
    assert.equal(name('update ai.agent_runs set status = $1 where id = $2'), 'update ai.agent_runs');
    assert.equal(name('delete from storage.objects where name = $1'), 'delete storage.objects');
    assert.equal(name('select id, name from ai.agents where id = $1'), 'select ai.agents');
    assert.equal(name('with w as (select id from ai.workflows) insert into ai.workflow_executions (workflow_id) select id from w'), 'insert ai.workflow_executions');
    assert.equal(name('with pgrst_source as (select "public"."traced".* from "public"."traced") select count(*) from pgrst_source'), 'select public.traced');
    assert.equal(name('-- a comment\nbegin'), 'begin');
  });

  it('never carries a literal', () => {
    assert.equal(name(`alter role authenticator with login password 'hunter2-secret'`), 'alter');
    assert.equal(name(`select * from t where secret = 'swordfish'`), 'select t');
  });
});
