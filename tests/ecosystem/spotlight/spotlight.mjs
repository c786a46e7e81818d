// Spotlight's own command line (`spotlight [server] -p PORT`, `spotlight tail
// TYPES -f FORMAT -p PORT`, ...), as its package's bin runs it, with two
// differences that keep a test on this machine:
//  - its servers listen on 127.0.0.1 only (Spotlight itself listens on every
//    address and has no option to choose);
//  - its telemetry is left out: the package's bin first loads instrument.js,
//    which sends Spotlight's own traces and errors to sentry.io.
// `-p 0` picks a free port; the server then logs "Spotlight listening on N".
//
// The packages are those of package.json here, installed by tests/meson.build
// into the directory PM_NODE_MODULES names (default: node_modules beside this file).
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Spotlight 4.11.8 and playwright-core declare it; Debian 12's own nodejs is 18.
if (Number(process.versions.node.split('.')[0]) < 20) {
  console.error(`spotlight.mjs: Spotlight needs Node.js 20 or later, this is ${process.version}`);
  process.exit(1);
}

const modules = process.env.PM_NODE_MODULES || join(dirname(fileURLToPath(import.meta.url)), 'node_modules');
const dist = join(modules, '@spotlightjs', 'spotlight', 'dist');

// @hono/node-server calls listen(port, hostname, callback) with no hostname.
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' && args[1] === undefined)
    args[1] = '127.0.0.1';
  else if (typeof args[0] === 'number' && typeof args[1] !== 'string')
    args.splice(1, 0, '127.0.0.1');
  return listen.apply(this, args);
};

// The UI files, as the package's bin hands them to the server.
const ui = join(dist, 'ui');
const filesToServe = { 'index.html': readFileSync(join(ui, 'index.html')) };
for (const entry of Object.values(JSON.parse(readFileSync(join(ui, 'manifest.json')))))
  if (entry && typeof entry.file === 'string')
    filesToServe[entry.file] = readFileSync(join(ui, entry.file));

const { main } = await import(pathToFileURL(join(dist, 'server', 'cli.js')).href);
await main({ basePath: process.cwd(), filesToServe });
