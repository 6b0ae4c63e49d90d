// node-pg's own value conversion (JS values to Postgres text), used by db/pipeline.ts.
declare module 'pg/lib/utils.js' {
  const utils: { prepareValue: (value: unknown) => unknown };
  export default utils;
}
