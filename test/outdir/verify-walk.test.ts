/**
 * `verify` checks a pack's entries as its hash reads the file (one read for both), and leaves
 * to `findDamage` only what that walk cannot vouch for (cli-contract "verify", "Integrity").
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findDamage } from "../../src/integrity/check-file.js";
import type { StateItem } from "../../src/outdir/state.js";
import { verifyRecord } from "../../src/outdir/verify.js";
import { sha256, tempDir } from "../helpers/files.js";
import { buildZip, flipped, localOffsets, MIXED } from "../integrity/zip-samples.js";

/** findDamage, counting its calls. */
let calls = 0;
const counted: typeof findDamage = (...args) => {
  calls += 1;
  return findDamage(...args);
};

afterEach(() => {
  calls = 0;
});

/** Writes `bytes` as a recorded pack file of a fresh directory; returns the directory and record. */
function recorded(bytes: Buffer): { dir: string; record: StateItem } {
  const dir = tempDir("svc-dl-verify-walk-");
  writeFileSync(join(dir, "pack.zip"), bytes);
  const record: StateItem = {
    kind: "pack",
    slug: "pack",
    edition: "standard",
    file: "pack.zip",
    size: bytes.length,
    etag: null,
    sha256: sha256(bytes),
    completed_at: new Date(0).toISOString(),
  };
  return { dir, record };
}

/** MIXED with every entry flagged "sizes in a data descriptor": a walk the stream cannot vouch for. */
const DESCRIBED = MIXED.map((e) => ({ ...e, flags: 0x08 }));

describe("verify walks a pack's entries while it hashes it", () => {
  it("a sound pack is ok from the one read: findDamage is not asked", async () => {
    const { dir, record } = recorded(buildZip(MIXED));
    const item = await verifyRecord(dir, record, undefined, counted);
    expect(item.status).toBe("ok");
    expect(calls).toBe(0);
  });

  it("damage the walk meets is named by findDamage, entry and offset", async () => {
    const zip = buildZip(MIXED);
    const at = (localOffsets(zip)[1] ?? 0) + 60; // inside textures/rock.png's stored data
    const { dir, record } = recorded(flipped(zip, at));
    const item = await verifyRecord(dir, record, undefined, counted);
    expect(item.status).toBe("damaged");
    expect(item.damage).toMatch(/^entry "textures\/rock\.png" at byte \d+: CRC-32 of the data is/);
    expect(calls).toBe(1);
  });

  it("a pack the walk cannot vouch for (data descriptors) is decided by findDamage: sound, then damaged", async () => {
    const zip = buildZip(DESCRIBED);
    const sound = recorded(zip);
    expect((await verifyRecord(sound.dir, sound.record, undefined, counted)).status).toBe("ok");
    expect(calls).toBe(1);
    const at = (localOffsets(zip)[1] ?? 0) + 60;
    const bad = recorded(flipped(zip, at));
    const item = await verifyRecord(bad.dir, bad.record, undefined, counted);
    expect(item.status).toBe("damaged");
    expect(item.damage).toMatch(/textures\/rock\.png/);
  });

  it("a pack whose hash does not match is changed, and no format check runs", async () => {
    const zip = buildZip(MIXED);
    const { dir, record } = recorded(zip);
    writeFileSync(join(dir, "pack.zip"), flipped(zip, 100));
    const item = await verifyRecord(dir, record, undefined, counted);
    expect(item.status).toBe("changed");
    expect(calls).toBe(0);
  });
});
