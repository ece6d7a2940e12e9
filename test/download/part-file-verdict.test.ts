import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type CompletePart, PartFileSink } from "../../src/download/part-file-sink.js";
import type { HttpResponse } from "../../src/http/request-types.js";
import { silentProgress } from "../../src/io/progress.js";
import type { ItemRef } from "../../src/outdir/state.js";
import { tempDir } from "../helpers/files.js";
import { buildZip, flipped, halfCompressible, MIXED } from "../integrity/zip-samples.js";

const response = { status: 200, headers: {}, requestId: "req_1" } as unknown as HttpResponse;

/** Downloads `bytes` into a part file through the sink, in chunks of `chunk` bytes. */
async function throughSink(
  kind: ItemRef["kind"],
  bytes: Buffer,
  chunk = 65_537,
): Promise<CompletePart> {
  const dir = tempDir();
  mkdirSync(join(dir, ".svc-dl")); // as the output directory prepares it
  const sink = new PartFileSink({
    dir,
    item: { kind, slug: "s", edition: "standard" },
    conditionalEtag: undefined,
    progress: silentProgress,
    progressLabel: undefined,
    chooseName: () => "s.zip",
  });
  const head = { start: 0, total: bytes.length, etag: '"e1"' };
  sink.begin(response, head);
  for (let at = 0; at < bytes.length; at += chunk) sink.write(bytes.subarray(at, at + chunk));
  sink.end();
  return await sink.finish(response, head);
}

describe("PartFileSink: a pack's ZIP check while read back hands its verdict to the engine", () => {
  it("a sound pack is `sound` (the engine skips the second read)", async () => {
    expect((await throughSink("pack", buildZip(MIXED))).formatVerdict).toBe("sound");
    expect((await throughSink("pack", buildZip(MIXED), 1000)).formatVerdict).toBe("sound");
  });

  it("damage, a data descriptor or a file that is no ZIP is `unsure` (findDamage decides)", async () => {
    const good = buildZip(MIXED);
    const descriptor = buildZip([
      { name: "a", data: halfCompressible(5000, 1), method: 8, flags: 0x0008 },
    ]);
    for (const bytes of [flipped(good, 200_000), descriptor, Buffer.from("<html>")]) {
      expect((await throughSink("pack", bytes)).formatVerdict).toBe("unsure");
    }
  });

  it("an asset (GLB) carries no verdict: findDamage checks its structure", async () => {
    expect((await throughSink("asset", Buffer.from("glTF"))).formatVerdict).toBeUndefined();
  });
});
