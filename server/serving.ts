// The HTTP servers of a platform process: listening, and draining on stop.
import http from 'node:http';

export function listen(app: http.RequestListener, port: number, host: string): Promise<http.Server> {
  return new Promise((resolve, reject) => {
    const server = http.createServer(app);
    server.keepAliveTimeout = 65_000; // longer than common load-balancer idle timeouts
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(err.code === 'EADDRINUSE' ? new Error(`Port ${port} is already in use (set ${port === 0 ? 'PORT' : 'PORT or PLATFORM_PORT'} to a free port)`) : err);
    });
    server.listen(port, host, () => resolve(server));
  });
}

/** Stops accepting, lets requests in flight finish (up to the timeout), then closes the rest. */
export async function drain(servers: http.Server[], timeoutMs: number, hooks: Array<() => Promise<void>>): Promise<void> {
  const closed = servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())));
  // Keep-alive connections become idle as their last response ends: close them as they do.
  const sweep = setInterval(() => servers.forEach((s) => s.closeIdleConnections()), 50);
  servers.forEach((s) => s.closeIdleConnections());
  await Promise.all(hooks.map((hook) => hook()));
  const timer = setTimeout(() => servers.forEach((s) => s.closeAllConnections()), timeoutMs);
  await Promise.all(closed);
  clearTimeout(timer);
  clearInterval(sweep);
}
