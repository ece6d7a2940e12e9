import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { downloadRequests, type InstallDoc, install, makeProject } from "../helpers/install.js";
import { useMockService } from "../helpers/mock.js";

/** `install --extract` and `"extract": true` (cli-contract "Downloads", `--extract`). */

const shared = useMockService({
  packSize: 96 * 1024,
  assetSize: 16 * 1024,
  limits: { download: { quota: 1000, windowSeconds: 60 } },
});

type Extracted = { path: string; status: "extracted" | "unchanged"; files: number };
type ExtractDoc = InstallDoc & {
  items: (InstallDoc["items"][number] & { extracted?: Extracted })[];
};

describe("svc-dl install: extraction", () => {
  it('unpacks packs marked "extract": true or all with --extract, and never an unchanged archive twice', async () => {
    const p = makeProject({
      dir: "vendor",
      packs: ["desert-rocks", { slug: "sci-fi-props", extract: true }],
      assets: ["free-sample-cube"],
    });
    const first = await install(shared.mock, p);
    expect(first.code, first.stderr).toBe(0);
    const doc1 = JSON.parse(first.stdout) as ExtractDoc;
    const [desert1, scifi1, asset1] = doc1.items;
    expect(desert1?.extracted).toBeUndefined();
    expect(asset1?.extracted).toBeUndefined();
    const scifiFolder = join(doc1.dir, "sci-fi-props");
    expect(scifi1?.extracted).toEqual({
      path: scifiFolder,
      status: "extracted",
      files: expect.any(Number),
    });
    expect(scifi1?.extracted?.files).toBeGreaterThan(0);
    expect(existsSync(join(scifiFolder, "sci-fi-props", "README.txt"))).toBe(true);
    expect(existsSync(join(doc1.dir, "sci-fi-props.zip"))).toBe(true);
    expect(existsSync(join(doc1.dir, "desert-rocks"))).toBe(false);
    const readme = join(scifiFolder, "sci-fi-props", "README.txt");
    const inode = statSync(readme).ino;

    shared.mock.clearLog();
    const second = await install(shared.mock, p, ["--extract"]);
    expect(second.code, second.stderr).toBe(0);
    const doc2 = JSON.parse(second.stdout) as ExtractDoc;
    const [desert2, scifi2] = doc2.items;
    expect(scifi2?.extracted?.status).toBe("unchanged");
    expect(statSync(readme).ino).toBe(inode);
    expect(desert2?.extracted?.status).toBe("extracted");
    expect(existsSync(join(doc2.dir, "desert-rocks", "desert-rocks", "README.txt"))).toBe(true);
    expect(downloadRequests(shared.mock)).toHaveLength(0);
    expect(readdirSync(join(doc2.dir, ".svc-dl")).filter((n) => n.startsWith("extract-"))).toEqual(
      [],
    );
  });
});
