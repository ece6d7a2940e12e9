/**
 * The deflated-pack row of `npm run bench` (test/bench/run.js `--only deflated`): svc-dl
 * `pack get` of a pack whose entries are deflated (test/bench/deflated-pack.js: GLB-like data
 * at about half its size; 512 MiB by default, the first `--sizes`) against the same work done
 * by its peers one after the other, `curl -o f && unzip -tq f && sha256sum f`: download, every
 * entry inflated and CRC-checked, the file hashed. svc-dl does all three (plus fsync) before
 * the file takes its name. Alternating pairs from the nginx origin over http (https when only
 * `--proto https` is given); medians of wall time, CPU and peak RSS. Targets (cli-contract
 * "Integrity"; docs/performance.md): wall ≤ 0.4 × the peers', peak RSS ≤ 100 MiB.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { writeDeflatedPack } from "./deflated-pack.js";

const MIB = 1024 * 1024;

/** The targets of this row. */
export const DEFLATED_TARGETS = { wallRatioToPeers: 0.4, peakRssMiB: 100 };

/**
 * Runs the row with the bench's helpers (`kit`: measure, startMock, apiGet, downloadService,
 * childEnv, errorLine, median, fmt, verdict, printTable, tmp, cli). Resolves the results
 * object written to the JSON file.
 */
export async function benchDeflated(opts, kit) {
  const { fmt, median } = kit;
  const size = opts.sizes[0];
  const proto = opts.protos.has("http") ? "http" : "https";
  const mib = fmt(size / MIB, 0);
  const mock = await kit.startMock({ packSize: 64 * 1024, signedUrlTtlSeconds: 3600 });
  const packs = (await kit.apiGet(mock, "packs?limit=100")).data;
  const pack = packs.find((p) => p.slug === "low-poly-forest") ?? packs[0];
  if (!pack) throw new Error("the mock lists no owned pack");
  process.stdout.write(`\ndeflated pack of ${mib} MiB over ${proto}: making it…\n`);
  let made;
  const svc = await kit.downloadService(mock, proto, pack.downloads.bundle, (file) => {
    made = writeDeflatedPack(file, size, pack.slug);
  });
  if (!made) throw new Error("the deflated pack was not made (no nginx origin?)");
  process.stdout.write(
    `deflated pack: ${fmt(made.bytes / MIB, 0)} MiB, ${made.entries} entries, ${fmt(made.uncompressedBytes / MIB, 0)} MiB inflated (ratio ${fmt(made.ratio)}); origin ${svc.origin}\n`,
  );
  const outDir = mkdtempSync(join(kit.tmp, "deflated-"));
  const outFile = join(outDir, `${pack.slug}.zip`);
  const clean = () => {
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir);
  };
  const env = kit.childEnv({ SVC_BASE_URL: svc.baseUrl, SVC_API_KEY: mock.apiKey });
  const timeoutMs = Math.max(180_000, (size / (2 * MIB)) * 1000);
  const peers = async () => {
    const url = (await kit.cdnUrlOf(mock, pack.downloads.bundle)).replace(mock.cdnUrl, svc.cdnUrl);
    const ca = svc.curlArgs.map((a) => `'${a}'`).join(" ");
    const script = `curl -sS ${ca} -o '${outFile}' '${url}' && unzip -tq '${outFile}' >/dev/null && sha256sum '${outFile}'`;
    return ["sh", ["-c", script]];
  };
  const tools = [
    {
      name: "svc-dl",
      cmd: async () => [
        process.execPath,
        [kit.cli, "pack", "get", pack.slug, "-o", `${outDir}/`, "--no-progress", "--quiet"].concat(
          svc.caArgs,
        ),
      ],
    },
    { name: "peers", cmd: peers, prints: true },
  ];
  for (const t of tools) t.samples = [];
  const runOnce = async (t) => {
    clean();
    const [file, args] = await t.cmd();
    const r = await kit.measure(file, args, { env, timeoutMs, captureStdout: t.prints === true });
    let error = null;
    if (r.code !== 0) error = `exit ${r.code}: ${kit.errorLine(r.stderr)}`;
    else if (!existsSync(outFile) || statSync(outFile).size !== made.bytes) error = "wrong size";
    else if (t.prints && !r.stdout.includes(made.sha256)) error = "sha256sum differs";
    return { r, error };
  };
  process.stdout.write("deflated pack: warm-up\n");
  await runOnce(tools[1]);
  for (let i = 0; i < opts.runs; i++) {
    for (const t of i % 2 ? [...tools].reverse() : tools) {
      const { r, error } = await runOnce(t);
      if (error) {
        process.stdout.write(`  ${t.name} run ${i + 1}: FAILED (${error})\n`);
        continue;
      }
      t.samples.push({ wall: r.wall, cpu: r.cpu, rssMiB: r.rssMiB });
      process.stdout.write(
        `  ${t.name.padEnd(6)} run ${i + 1}: ${fmt(r.wall)} s, CPU ${fmt(r.cpu)} s, RSS ${fmt(r.rssMiB, 1)} MiB\n`,
      );
    }
  }
  rmSync(outDir, { recursive: true, force: true });
  const [svcDl, peer] = tools.map((t) => ({
    runs: t.samples.length,
    medianWallSeconds: median(t.samples.map((s) => s.wall)),
    medianCpuSeconds: median(t.samples.map((s) => s.cpu)),
    maxPeakRssMiB: t.samples.length ? Math.max(...t.samples.map((s) => s.rssMiB ?? 0)) : null,
    samples: t.samples,
  }));
  const ratio =
    svcDl.medianWallSeconds && peer.medianWallSeconds
      ? svcDl.medianWallSeconds / peer.medianWallSeconds
      : null;
  const met = {
    ratio: ratio === null ? null : ratio <= DEFLATED_TARGETS.wallRatioToPeers,
    peakRss:
      svcDl.maxPeakRssMiB === null ? null : svcDl.maxPeakRssMiB <= DEFLATED_TARGETS.peakRssMiB,
  };
  process.stdout.write(
    `\ndeflated pack of ${fmt(made.bytes / MIB, 0)} MiB over ${proto} (${opts.runs} pairs, alternating; medians)\n`,
  );
  kit.printTable(
    ["measure", "svc-dl", "curl && unzip -tq && sha256sum", "target", ""],
    [
      [
        "wall s",
        fmt(svcDl.medianWallSeconds),
        fmt(peer.medianWallSeconds),
        `≤ ${DEFLATED_TARGETS.wallRatioToPeers}× peers`,
        ratio === null ? "—" : `${ratio.toFixed(2)}× ${kit.verdict(met.ratio)}`,
      ],
      ["CPU s", fmt(svcDl.medianCpuSeconds), fmt(peer.medianCpuSeconds), "", ""],
      [
        "peak RSS MiB (max)",
        fmt(svcDl.maxPeakRssMiB, 1),
        fmt(peer.maxPeakRssMiB, 1),
        `≤ ${DEFLATED_TARGETS.peakRssMiB}`,
        kit.verdict(met.peakRss),
      ],
    ],
  );
  return { sizeBytes: made.bytes, proto, pack: made, ratioToPeers: ratio, svcDl, peers: peer, met };
}

/** The target rows of a deflated result (test/bench/run.js `printTargetRows`). */
export function deflatedTargetRows(d, fmt) {
  if (!d?.svcDl) return [];
  const mib = fmt(d.sizeBytes / MIB, 0);
  return [
    [
      `${mib} MiB deflated pack over ${d.proto}, wall vs curl && unzip -tq && sha256sum`,
      d.ratioToPeers === null ? "—" : `${d.ratioToPeers.toFixed(2)} ×`,
      `≤ ${DEFLATED_TARGETS.wallRatioToPeers} ×`,
    ],
    [
      `${mib} MiB deflated pack over ${d.proto}, peak RSS`,
      `${fmt(d.svcDl.maxPeakRssMiB, 1)} MiB`,
      `≤ ${DEFLATED_TARGETS.peakRssMiB} MiB`,
    ],
  ];
}
