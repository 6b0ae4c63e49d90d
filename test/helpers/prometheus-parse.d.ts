// The Prometheus text-format parser the metrics tests read /metrics with (it ships no types).
declare module 'parse-prometheus-text-format' {
  type Sample = { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string };
  type Family = { name: string; help: string; type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'; metrics: Sample[] };
  export default function parsePrometheusTextFormat(text: string): Family[];
}
