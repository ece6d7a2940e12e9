#!/usr/bin/env node
// `npm run demo`: starts the mock service on a free 127.0.0.1 port, runs `svc-dl whoami`,
// `svc-dl packs list` and `svc-dl pack get …` into ./demo-downloads as a user would, checks the
// saved ZIP's SHA-256 against the bytes the mock served, stops the service and exits 0.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { startMockService } from "../dist/mock-server/index.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "bin", "svc-dl.js");
const outDir = resolve(process.cwd(), "demo-downloads");

function run(args, env) {
  process.stderr.write(`\n$ svc-dl ${args.join(" ")}\n`);
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env,
      stdio: ["ignore", "pipe", "inherit"],
    });
    let stdout = "";
    child.stdout.setEncoding("utf8").on("data", (d) => {
      stdout += d;
      process.stdout.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolvePromise(stdout);
      else reject(new Error(`svc-dl ${args.join(" ")} exited with ${code}`));
    });
  });
}

function sha256File(path) {
  return new Promise((resolvePromise, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("data", (d) => hash.update(d))
      .on("error", reject)
      .on("end", () => resolvePromise(hash.digest("hex")));
  });
}

const mock = await startMockService({ quiet: true });
try {
  process.stderr.write(`mock service: ${mock.baseUrl} (CDN ${mock.cdnUrl})\n`);
  const env = {
    ...process.env,
    SVC_BASE_URL: mock.baseUrl,
    SVC_API_KEY: mock.apiKey,
    SVC_DL_CONFIG_DIR: mkdtempSync(join(tmpdir(), "svc-dl-demo-config-")),
  };
  delete env.SVC_LICENSE_KEY;
  await run(["whoami"], env);
  const packs = JSON.parse(await run(["packs", "list", "--json"], env));
  const slug = packs[0]?.slug;
  if (!slug) throw new Error("the demo account owns no pack");
  mkdirSync(outDir, { recursive: true });
  const result = JSON.parse(
    await run(["pack", "get", slug, "-o", `${outDir}/`, "--force", "--json"], env),
  );
  const info = await mock.fileInfo({ kind: "pack", slug, edition: "standard" });
  const actual = await sha256File(result.path);
  if (actual !== info.sha256) {
    throw new Error(`SHA-256 mismatch: saved ${actual}, served ${info.sha256}`);
  }
  process.stderr.write(
    `\nDemo done: ${result.path} (${result.bytes} bytes) matches the served bytes (sha256 ${actual}).\n`,
  );
} finally {
  await mock.close();
}
