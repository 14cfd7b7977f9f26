// Test support: a git smart-HTTP server on loopback — git's own `git http-backend` (CGI) behind
// node:http — serving the bare repositories under `root`, with HTTP Basic auth against one token
// (accepted as password or user name, as GitHub does). Pushes are enabled.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitServer {
  /** `http://127.0.0.1:<port>`; a repository `<root>/x.git` is at `${url}/x.git`. */
  url: string;
  stop(): Promise<void>;
}

/** `token`: the one token accepted, or a check (a GitHub test server's `acceptsToken`, for App installation tokens). */
export async function startGitServer({
  root,
  token,
}: {
  root: string;
  token: string | ((token: string) => boolean);
}): Promise<GitServer> {
  const server = createServer((req, res) => {
    const user = authorizedUser(req.headers.authorization, token);
    if (user === undefined) {
      res
        .writeHead(401, { 'WWW-Authenticate': 'Basic realm="kimops test git"', 'Content-Type': 'text/plain' })
        .end('token required\n');
      return;
    }
    serveCgi(req, res, root, user);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** The Basic-auth user name when the token is the password or the user name, else undefined. */
function authorizedUser(header: string | undefined, token: string | ((token: string) => boolean)): string | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const [user, password] = colon < 0 ? [decoded, ''] : [decoded.slice(0, colon), decoded.slice(colon + 1)];
  const accepts = typeof token === 'string' ? (given: string) => given === token : token;
  return (password !== '' && accepts(password)) || (user !== '' && accepts(user)) ? user || 'token' : undefined;
}

function serveCgi(req: IncomingMessage, res: ServerResponse, root: string, user: string): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const backend = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      // git clients gzip large request bodies; http-backend inflates them when told.
      HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
      REMOTE_USER: user,
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
    },
  });
  // http-backend may answer (an error) before it reads the whole body; the rest is then of no use.
  backend.stdin.on('error', () => undefined);
  req.pipe(backend.stdin);
  // CGI output: header lines, a blank line, then the body; `Status:` carries the HTTP status.
  let head = Buffer.alloc(0);
  let headersSent = false;
  backend.stdout.on('data', (chunk: Buffer) => {
    if (headersSent) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    headersSent = true;
    res.write(head.subarray(end + 4));
  });
  let stderr = '';
  backend.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  backend.on('error', (error) => {
    if (!res.headersSent)
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`cannot run git http-backend: ${error.message}\n`);
  });
  backend.on('close', (code) => {
    if (res.headersSent) res.end();
    else res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`git http-backend exited ${code}: ${stderr}`);
  });
}
