import { existsSync, statfsSync } from "node:fs";
import { dirname } from "node:path";
import { packCatalog } from "../../api/pack-catalog.js";
import { counted } from "../../io/plural.js";
import { formatBytes } from "../../io/progress-format.js";
import { OutputDir } from "../../outdir/output-dir.js";
import type { Session } from "../../session.js";
import { planSync } from "../../sync/plan.js";
import { syncTargets } from "../../sync/targets.js";
import { type DoctorCheck, failure } from "./doctor-check.js";

/** What a `packs sync` of DIR would fetch, as far as DIR's records tell its size. */
export interface SyncNeed {
  /** Pack files the sync would download. */
  count: number;
  /** Bytes of those whose size DIR's records know (a recorded file gone or changed). */
  knownBytes: number;
  /** Those never downloaded into DIR: the pack list gives no sizes. */
  unknown: number;
  /** Average size of the packs DIR records, for an estimate of the unknown ones; undefined without any. */
  averageBytes: number | undefined;
}

/**
 * What `packs sync DIR` (standard edition, no filter) would fetch, planned by the sync's own
 * planner on DIR read only (`OutputDir.inspect`: no lock, nothing written) against the owned
 * packs (`GET /v1/packs`, every page; read budget). Throws what the listing and the state read
 * throw.
 */
export async function syncNeed(session: Session, dir: string): Promise<SyncNeed> {
  const packs = await packCatalog(await session.http()).packs();
  const out = OutputDir.inspect(dir);
  const plan = await planSync(out, syncTargets(packs, "standard"), {
    refresh: false,
    dryRun: true,
    signal: session.ctx.signal,
  });
  const fetched = plan.filter((p) => p.action === "fetch");
  const sized = out.records().filter((r) => r.kind === "pack");
  return {
    count: fetched.length,
    knownBytes: fetched.reduce((sum, p) => sum + (p.recorded?.size ?? 0), 0),
    unknown: fetched.filter((p) => p.recorded === undefined).length,
    averageBytes:
      sized.length === 0
        ? undefined
        : Math.round(sized.reduce((sum, r) => sum + r.size, 0) / sized.length),
  };
}

/** `N bytes (1.2 GiB)`. */
function bytes(n: number): string {
  return `${n} bytes (${formatBytes(n)})`;
}

/**
 * With DIR: free space on its file system (statfs of DIR or its nearest existing parent)
 * against the bytes a sync would fetch (cli-contract "Operating unattended", doctor): the
 * recorded sizes of files to fetch again, plus, for packs never downloaded (the pack list gives
 * no sizes), an estimate from the average recorded pack. Warns when the space is short. Without
 * `need` (the service was not reachable or refused the key) only the free space is reported.
 */
export function spaceCheck(dir: string, need: SyncNeed | Error | undefined): DoctorCheck {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  let free: number;
  try {
    const st = statfsSync(at);
    free = Number(st.bavail) * Number(st.bsize);
  } catch (err) {
    return failure("free-space", err);
  }
  const ok = (finding: string): DoctorCheck => ({
    name: "free-space",
    status: "ok",
    finding,
    hint: null,
  });
  const freeText = `${bytes(free)} free at ${at}`;
  if (need === undefined)
    return ok(`${freeText}; what a sync would fetch needs the key checks to pass`);
  if (need instanceof Error) {
    const why = (need as { code?: unknown }).code;
    return ok(`${freeText}; what a sync would fetch is unknown (${String(why ?? need.message)})`);
  }
  if (need.count === 0) return ok(`${freeText}; a sync would fetch nothing`);
  const estimate = need.unknown * (need.averageBytes ?? 0);
  const parts = [
    ...(need.count > need.unknown
      ? [`${need.count - need.unknown} again, ${bytes(need.knownBytes)}`]
      : []),
    ...(need.unknown === 0
      ? []
      : [
          need.averageBytes === undefined
            ? `${need.unknown} new of unknown size (the pack list gives no sizes)`
            : `${need.unknown} new, about ${bytes(estimate)} at the ${formatBytes(need.averageBytes)} average of the packs recorded`,
        ]),
  ];
  const finding = `${freeText}; a sync would fetch ${counted(need.count, "pack")}: ${parts.join("; ")}`;
  if (free >= need.knownBytes + estimate) return ok(finding);
  return {
    name: "free-space",
    status: "warn",
    finding,
    hint: `Free at least ${formatBytes(need.knownBytes + estimate - free)} on that file system, or sync fewer packs (packs sync --include, --exclude, --category).`,
  };
}
