import { execFile, spawnSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { useMockService } from "../helpers/mock.js";

/**
 * The README's install routes, each into a scratch project, offline: a release tarball (the
 * output of `npm pack`), the git repository at a tag, and a clone with `npm install` +
 * `npm link`. Each must give a working package with the type declarations package.json names.
 * Slow (a fresh clone's install and two packs): `npm run test:package`, not `npm test`.
 */

const root = fileURLToPath(new URL("../..", import.meta.url));
/** Async, so the in-process mock service keeps answering while the child runs. */
const execFileAsync = promisify(execFile);
const shared = useMockService({ packSize: 64 * 1024, assetSize: 16 * 1024 });
const TAG = "v0.0.0-test";
/** The packed package's budget (`npm pack`; docs/performance.md "Package size"). */
const PACKED_BYTES_MOST = 500_000;

/** Runs a command synchronously; throws with its output when it fails. */
function run(cmd: string, args: string[], cwd: string) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.status !== 0) {
    throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return r;
}

/**
 * A clone of this repository at a tag, as `git clone --branch TAG` gives one: what git tracks
 * (the working tree under test: tracked and new unignored files), no dist/, no node_modules/.
 */
function cloneAtTag(base: string): string {
  const repo = join(base, "repo");
  const files = run("git", ["ls-files", "-z", "-co", "--exclude-standard"], root)
    .stdout.split("\0")
    .filter((f) => f !== "" && existsSync(join(root, f)));
  for (const f of files) {
    mkdirSync(dirname(join(repo, f)), { recursive: true });
    cpSync(join(root, f), join(repo, f));
  }
  const git = ["-c", "user.name=test", "-c", "user.email=test@example.invalid"];
  run("git", ["init", "-q"], repo);
  run("git", ["add", "-A"], repo);
  run("git", [...git, "commit", "-q", "-m", "release"], repo);
  run("git", [...git, "tag", TAG], repo);
  const clone = join(base, "clone");
  run("git", ["clone", "-q", "--branch", TAG, `file://${repo}`, clone], base);
  return clone;
}

/** `npm pack` in `dir` into `out`; returns the tarball's path. */
function pack(dir: string, out: string, ignoreScripts: boolean): string {
  mkdirSync(out, { recursive: true });
  const flags = ignoreScripts ? ["--ignore-scripts"] : [];
  run("npm", ["pack", ...flags, "--pack-destination", out], dir);
  const tarball = readdirSync(out).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error("npm pack wrote no tarball");
  return join(out, tarball);
}

/** A scratch project (ESM) in a new folder under `base`. */
function scratchProject(base: string, name: string): string {
  const app = join(base, name);
  mkdirSync(app);
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({ name, version: "1.0.0", private: true, type: "module" }),
  );
  return app;
}

/** Links `bin` entries of the package at `pkgDir` into `app`'s node_modules/.bin. */
function linkBins(app: string, pkgDir: string): void {
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as {
    bin: Record<string, string>;
  };
  mkdirSync(join(app, "node_modules", ".bin"), { recursive: true });
  for (const [name, file] of Object.entries(pkg.bin)) {
    symlinkSync(join(pkgDir, file), join(app, "node_modules", ".bin", name));
  }
}

/**
 * Installs a tarball into `app` as a user would: `npm install <tarball> --offline` (the
 * dependencies from the npm cache). Where the npm cache lacks their metadata (ENOTCACHED), the
 * tarball is unpacked into node_modules/svc-dl and only its declared dependencies are linked
 * in from this checkout, so an undeclared dependency still fails the test.
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
  };
  for (const dep of Object.keys(pkg.dependencies)) {
    const link = join(app, "node_modules", dep);
    mkdirSync(join(link, ".."), { recursive: true });
    symlinkSync(join(root, "node_modules", dep), link);
  }
  linkBins(app, target);
}

/** What `npm link` in the clone, then `npm link svc-dl` in `app`, leaves: a link to the clone. */
function linkClone(app: string, clone: string): void {
  mkdirSync(join(app, "node_modules"), { recursive: true });
  symlinkSync(clone, join(app, "node_modules", "svc-dl"));
  linkBins(app, clone);
}

/** A consumer program that must type-check against the package's declarations (and catch mistakes). */
const CONSUMER = `
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

/** Type-checks {@link CONSUMER} in `app` with tsc (strict, NodeNext); returns tsc's output. */
function typeCheck(app: string): { status: number | null; output: string } {
  writeFileSync(join(app, "consumer.ts"), CONSUMER);
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
  return { status: r.status, output: r.stdout + r.stderr };
}

describe("the package, installed by each route the README gives", () => {
  const apps: Record<"tarball" | "git" | "clone", string> = { tarball: "", git: "", clone: "" };
  let tarball = "";

  beforeAll(() => {
    const base = mkdtempSync(join(tmpdir(), "svc-dl-routes-"));
    const clone = cloneAtTag(base);
    // `npm install` in a clone (npm ci: the same lifecycle, from the lock file, offline): the
    // `prepare` script builds dist/ with its declarations.
    run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], clone);
    // A release tarball: `npm pack` (prepack builds; the packed manifest has no `prepare`).
    tarball = pack(clone, join(base, "release"), false);
    // The git repository at a tag: npm installs the clone's dependencies (running `prepare`,
    // done above) and packs it as it is, without prepack.
    const gitTarball = pack(clone, join(base, "git"), true);
    apps.tarball = scratchProject(base, "app-tarball");
    installTarball(apps.tarball, tarball);
    apps.git = scratchProject(base, "app-git");
    installTarball(apps.git, gitTarball);
    apps.clone = scratchProject(base, "app-clone");
    linkClone(apps.clone, clone);
  }, 600_000);

  it("a release tarball holds dist/ with its declarations and docs/, and no install script", () => {
    const list = run("tar", ["-tzf", tarball], root).stdout.split("\n");
    expect(list).toContain("package/dist/index.js");
    // one rolled-up declaration file per export of package.json
    expect(list.filter((f) => f.endsWith(".d.ts")).sort()).toEqual([
      "package/dist/types/index.d.ts",
      "package/dist/types/mock-server/index.d.ts",
    ]);
    expect(list).toContain("package/docs/install.md");
    expect(list).toContain("package/dist/sbom.cdx.json");
    const manifest = JSON.parse(
      run("tar", ["-xzOf", tarball, "package/package.json"], root).stdout,
    ) as { scripts: Record<string, string> };
    for (const script of ["preinstall", "install", "postinstall", "prepare"]) {
      expect(manifest.scripts[script], script).toBeUndefined();
    }
  });

  it(`a release tarball is at most ${PACKED_BYTES_MOST} bytes (0.5 MB)`, () => {
    expect(statSync(tarball).size).toBeLessThanOrEqual(PACKED_BYTES_MOST);
  });

  it("installed from its tarball, gives a working `svc-dl install` and an importable library", async () => {
    const app = apps.tarball;
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
    // the program's packages are inlined: none of those only it uses is installed
    for (const cliOnly of ["chalk", "cli-progress", "commander", "conf", "read"]) {
      expect(existsSync(join(app, "node_modules", cliOnly)), cliOnly).toBe(false);
    }
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
  });

  it.each(["tarball", "git", "clone"] as const)(
    "installed from the %s, its .d.ts files type-check a consumer program (and catch its mistakes)",
    (route) => {
      const r = typeCheck(apps[route]);
      expect(r.output).toBe("");
      expect(r.status).toBe(0);
      const version = spawnSync(
        join(apps[route], "node_modules", ".bin", "svc-dl"),
        ["--version"],
        {
          encoding: "utf8",
        },
      );
      expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    },
  );
});
