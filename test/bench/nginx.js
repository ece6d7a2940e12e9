/**
 * An nginx origin for the download part of `npm run bench` (test/bench/run.js): the CDN that
 * curl and svc-dl download from is a real web server (sendfile, no Node on the serving side),
 * so the ratios compare the clients, not the mock. nginx is installed with apt-get when it is
 * missing (as root, non-interactive); without it the bench falls back to the mock's CDN and
 * says so. Plain ESM, Node built-ins only.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import { join } from "node:path";

const CANDIDATES = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/local/nginx/sbin/nginx"];

function findNginx() {
  for (const p of CANDIDATES) if (existsSync(p)) return p;
  const which = spawnSync("sh", ["-c", "command -v nginx"], { encoding: "utf8" });
  return which.status === 0 && which.stdout.trim() ? which.stdout.trim() : null;
}

/**
 * The nginx binary, installed with `apt-get install nginx-light` when missing and possible.
 * Returns its path, or null (with `log` told why).
 */
export function ensureNginx(log) {
  const found = findNginx();
  if (found) return found;
  if (process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
    log("nginx is not installed and cannot be installed here (needs root and apt-get)");
    return null;
  }
  log("nginx is not installed: apt-get install nginx-light …");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "ignore", env });
  const r = spawnSync(
    "apt-get",
    ["install", "-y", "-qq", "--no-install-recommends", "nginx-light"],
    { stdio: "ignore", env },
  );
  if (r.status !== 0) log(`apt-get install nginx-light failed (exit ${r.status})`);
  return findNginx();
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts nginx in the foreground serving the files under `root` on 127.0.0.1 (query strings
 * ignored, so signed CDN URLs work), over https with `tls` (`{ key, cert }` PEM text) or http
 * without. `dir` holds its config, logs and pid. Resolves `{ url, close() }`.
 */
export async function startNginx(bin, { root, dir, tls }) {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  let ssl = "";
  if (tls) {
    writeFileSync(join(dir, "key.pem"), tls.key, { mode: 0o600 });
    writeFileSync(join(dir, "cert.pem"), tls.cert);
    ssl = `ssl_certificate ${join(dir, "cert.pem")}; ssl_certificate_key ${join(dir, "key.pem")};`;
  }
  const conf = `
daemon off;
master_process off;
worker_processes 1;
pid ${join(dir, "nginx.pid")};
error_log ${join(dir, "error.log")} warn;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_timeout 30;
  keepalive_requests 100000;
  client_body_temp_path ${join(dir, "body")};
  proxy_temp_path ${join(dir, "proxy")};
  fastcgi_temp_path ${join(dir, "fastcgi")};
  uwsgi_temp_path ${join(dir, "uwsgi")};
  scgi_temp_path ${join(dir, "scgi")};
  types { application/zip zip; model/gltf-binary glb; }
  default_type application/octet-stream;
  server {
    listen 127.0.0.1:${port}${tls ? " ssl" : ""};
    ${ssl}
    root ${root};
    location / { try_files $uri =404; }
  }
}
`;
  const confPath = join(dir, "nginx.conf");
  writeFileSync(confPath, conf);
  const child = spawn(bin, ["-c", confPath, "-p", dir, "-e", join(dir, "error.log")], {
    stdio: "ignore",
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const url = `${tls ? "https" : "http"}://127.0.0.1:${port}`;
  // wait until it accepts connections (or exits)
  for (let i = 0; i < 200; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited (${child.exitCode}); see ${dir}`);
    if (await accepts(port)) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    close: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

function accepts(port) {
  return new Promise((resolve) => {
    const s = new Socket();
    s.once("connect", () => {
      s.destroy();
      resolve(true);
    });
    s.once("error", () => resolve(false));
    s.connect(port, "127.0.0.1");
  });
}
