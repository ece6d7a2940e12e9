import { execFile, spawnSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { useMockService } from "../helpers/mock.js";

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Async, so the in-process mock service keeps answering while the child runs. */
const execFileAsync = promisify(execFile);
const shared = useMockService({ packSize: 64 * 1024, assetSize: 16 * 1024 });

/** Runs a command synchronously; throws with its output when it fails. */
function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/**
 * Installs the packed tarball into `app` as a user would: `npm install <tarball> --offline`
 * (the dependencies come from the npm cache, no network). Where the npm cache lacks them (a
 * machine whose node_modules was not installed through npm), the tarball is unpacked into
 * node_modules/svc-dl and only its declared dependencies are linked in from this checkout, so
 * an undeclared dependency still fails the test.
 */
function installTarball(app: string, tarball: string): void {
  const npm = spawnSync(
    "npm",
    ["install", tarball, "--offline", "--no-audit", "--no-fund", "--ignore-scripts"],
    { cwd: app, encoding: "utf8" },
  );
  if (npm.status === 0) return;
  if (!`${npm.stdout}${npm.stderr}`.includes("ENOTCACHED")) {
    throw new Error(`npm install failed:\n${npm.stderr}`);
  }
  const target = join(app, "node_modules", "svc-dl");
  mkdirSync(target, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], app);
  const pkg = JSON.parse(readFileSync(join(target, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
    bin: Record<string, string>;
  };
  for (const dep of Object.keys(pkg.dependencies)) {
    const link = join(app, "node_modules", dep);
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", dep), link);
  }
  mkdirSync(join(app, "node_modules", ".bin"), { recursive: true });
  for (const [name, file] of Object.entries(pkg.bin)) {
    symlinkSync(join(target, file), join(app, "node_modules", ".bin", name));
  }
}

describe("the npm package", () => {
  let app = "";

  beforeAll(() => {
    // The declarations are built here, not in the suite's global setup (they take seconds); the
    // bundles the global setup built are left alone, as other tests start the CLI from them.
    run(process.execPath, ["scripts/build.js", "--types-only"], root);
    const out = mkdtempSync(join(tmpdir(), "svc-dl-pack-"));
    run("npm", ["pack", "--ignore-scripts", "--pack-destination", out], root);
    const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"));
    if (!tarball) throw new Error("npm pack wrote no tarball");
    app = join(out, "app");
    mkdirSync(app);
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ name: "app", version: "1.0.0", private: true, type: "module" }),
    );
    installTarball(app, join(out, tarball));
  }, 300_000);

  it("installed from its tarball, gives a working `svc-dl install` and an importable library", async () => {
    writeFileSync(
      join(app, "svc-dl.json"),
      JSON.stringify({ dir: "assets", assets: ["free-sample-cube"] }),
    );
    const env = {
      ...process.env,
      SVC_BASE_URL: shared.mock.baseUrl,
      SVC_API_KEY: shared.mock.apiKey,
      SVC_DL_CACHE_DIR: join(app, ".cache"),
      SVC_DL_CONFIG_DIR: join(app, ".config"),
    };
    const bin = join(app, "node_modules", ".bin", "svc-dl");
    const r = await execFileAsync(bin, ["install", "--json"], { cwd: app, env });
    expect(JSON.parse(r.stdout).items[0].status).toBe("downloaded");
    expect(JSON.parse(readFileSync(join(app, "svc-dl.lock"), "utf8")).items).toHaveLength(1);

    const script = `
      import { createClient } from "svc-dl";
      import { startMockService } from "svc-dl/mock";
      const mock = await startMockService({ quiet: true });
      const packs = await createClient({ baseUrl: mock.baseUrl, apiKey: mock.apiKey }).listPacks();
      await mock.close();
      console.log(JSON.stringify({ packs: packs.length }));
    `;
    const lib = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
      cwd: app,
    });
    expect(JSON.parse(lib.stdout).packs).toBeGreaterThan(0);
  }, 120_000);

  it("its .d.ts files type-check a consumer program (and catch its mistakes)", () => {
    const consumer = `
      import { createClient, type InstallDocument, type ProgressEvent, SvcError } from "svc-dl";
      import { type MockServiceOptions, startMockService } from "svc-dl/mock";

      const options: MockServiceOptions = { quiet: true, packSize: 1024 };
      const mock = await startMockService(options);
      const client = createClient({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });
      const packs = await client.listPacks();
      const first: string = packs[0]?.slug ?? "none";
      const seen: ProgressEvent[] = [];
      const doc = await client.downloadPack(first, {
        dir: "out",
        edition: "authoring",
        signal: AbortSignal.timeout(60_000),
        onProgress: (e) => seen.push(e),
      });
      const sha: string = doc.sha256;
      const installed: InstallDocument = await client.install({ frozen: true, cacheDir: ".cache" });
      const source: "cache" | "network" | "local" | null | undefined = installed.items[0]?.source;
      try {
        await client.whoami();
      } catch (err) {
        if (err instanceof SvcError) {
          const fields: [string, number, number | null, string | null] = [
            err.code, err.exitCode, err.httpStatus, err.requestId,
          ];
          console.log(fields);
        }
      }
      // @ts-expect-error edition is standard|authoring
      await client.downloadPack(first, { edition: "gold" });
      // @ts-expect-error the result has no such member
      console.log(doc.nonsense, sha, source);
      await mock.close();
    `;
    writeFileSync(join(app, "consumer.ts"), consumer);
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          types: ["node"],
          typeRoots: [join(root, "node_modules", "@types")],
        },
        files: ["consumer.ts"],
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const r = spawnSync(process.execPath, [tsc, "-p", "tsconfig.json"], {
      cwd: app,
      encoding: "utf8",
    });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  }, 120_000);
});
