// Zero-dependency static file server for the built site (../../dist by default).
//
//   import { startServer } from './serve.mjs';
//   const srv = await startServer({ root, port: 0 });   // port 0 = any free port
//   ... srv.url ...  await srv.close();
//
//   node serve.mjs [DIR] [PORT]                        // CLI; binds 127.0.0.1 only
//
// Serves `application/wasm` for .wasm (needed for WebAssembly.instantiateStreaming), no caching,
// `index.html` for directories, 404 for anything missing, and never a path outside DIR.
// `prefix` ("/tools/servecost/") serves DIR under that path only, as a host that puts the site
// in a sub-directory does: anything outside it is a 404 (so an absolute "/web-….js" fails).
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT = path.resolve(HERE, '../../dist');

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.woff2': 'font/woff2',
};

export function startServer({ root = DEFAULT_ROOT, port = 0, host = '127.0.0.1', log = false, prefix = '/' } = {}) {
  const rootDir = path.resolve(root);
  if (!fs.existsSync(path.join(rootDir, 'index.html'))) {
    return Promise.reject(new Error(`${rootDir}/index.html not found: run \`trunk build --release\` first`));
  }
  const server = http.createServer((req, res) => {
    let status = 200;
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        status = 405;
        res.writeHead(status, { Allow: 'GET, HEAD' }).end();
        return;
      }
      const fullPath = decodeURIComponent(new URL(req.url, 'http://localhost').pathname);
      if (!fullPath.startsWith(prefix)) {
        status = 404;
        res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
        return;
      }
      const urlPath = '/' + fullPath.slice(prefix.length);
      let file = path.resolve(rootDir, '.' + urlPath);
      if (file !== rootDir && !file.startsWith(rootDir + path.sep)) {
        status = 403;
        res.writeHead(status).end('forbidden');
        return;
      }
      if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) {
        status = 404;
        res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' }).end('not found');
        return;
      }
      const body = fs.readFileSync(file);
      res.writeHead(200, {
        'Content-Type': MIME[path.extname(file).toLowerCase()] || 'application/octet-stream',
        'Content-Length': body.length,
        'Cache-Control': 'no-store',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch (err) {
      status = 500;
      if (!res.headersSent) res.writeHead(status);
      res.end(String(err));
    } finally {
      if (log) console.log(`${status} ${req.method} ${req.url}`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: actual } = server.address();
      resolve({
        url: `http://${host}:${actual}${prefix}`,
        port: actual,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections?.();
            server.close(() => done());
          }),
      });
    });
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ? path.resolve(process.argv[2]) : DEFAULT_ROOT;
  const port = process.argv[3] ? Number(process.argv[3]) : 0;
  const srv = await startServer({ root, port, log: true });
  console.log(`serving ${root} at ${srv.url}`);
}
