// Load generator for the benchmarks, run as a child process so it does not
// share the server's event loop. Usage:
//   node bench/load.ts <json spec>  where spec = {url, method, headers, bodies: [...], concurrency, seconds}
// Prints {count, errors, statuses, p50, p99, cpu_ms} (latencies in ms; cpu_ms: this process's CPU).
const spec = JSON.parse(process.argv[2]!) as {
  url: string; method: string; headers: Record<string, string>; bodies: string[]; concurrency: number; seconds: number;
  /** refresh: each worker feeds the refresh_token of one answer into its next request */
  chain?: 'refresh_token';
};
const latencies: number[] = [];
const statuses: Record<string, number> = {};
let errors = 0;
const end = Date.now() + spec.seconds * 1000;
await Promise.all(
  Array.from({ length: spec.concurrency }, async (_, worker) => {
    let i = worker;
    let body = spec.bodies[worker % spec.bodies.length]!;
    while (Date.now() < end) {
      const t0 = performance.now();
      try {
        const res = await fetch(spec.url, { method: spec.method, headers: spec.headers, body });
        const text = await res.text();
        latencies.push(performance.now() - t0);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (spec.chain === 'refresh_token' && res.ok) body = JSON.stringify({ refresh_token: (JSON.parse(text) as { refresh_token: string }).refresh_token });
        else if (!spec.chain) body = spec.bodies[++i % spec.bodies.length]!;
      } catch {
        errors++;
      }
    }
  }),
);
latencies.sort((a, b) => a - b);
const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0;
// cpu_ms: this process's own CPU (user and system), for benches that count every process's share.
const cpu = process.cpuUsage();
process.stdout.write(JSON.stringify({ count: latencies.length, errors, statuses, p50: q(0.5), p99: q(0.99), seconds: spec.seconds, cpu_ms: (cpu.user + cpu.system) / 1000 }) + '\n');
