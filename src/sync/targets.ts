import type { Pack } from "../api/schemas.js";
import type { EditionChoice, PackEdition, SyncTarget } from "./types.js";

/**
 * The pack editions a sync looks after, in list order (standard before authoring of the same
 * pack): `standard` → every pack's `downloads.bundle`; `authoring` → every pack's
 * `downloads.authoring`; `all` → both. A pack record without a `downloads.authoring` URL
 * still yields an authoring target with `url` undefined, which the plan reports as
 * "no authoring edition" without any request. The download itself asks for the record's URL
 * (spec "Pack": clients use the URLs in `downloads` instead of building them), resolved by
 * src/api/download-source.ts as for `pack get` and `install`.
 */
export function syncTargets(packs: readonly Pack[], choice: EditionChoice): SyncTarget[] {
  const editions: PackEdition[] =
    choice === "all"
      ? ["standard", "authoring"]
      : choice === "authoring"
        ? ["authoring"]
        : ["standard"];
  const targets: SyncTarget[] = [];
  const seen = new Set<string>();
  for (const pack of packs) {
    // A repeated slug (a server listing a pack twice) is looked after once.
    if (seen.has(pack.slug)) continue;
    seen.add(pack.slug);
    for (const edition of editions) {
      const url = edition === "standard" ? pack.downloads.bundle : pack.downloads.authoring;
      targets.push({ slug: pack.slug, edition, url });
    }
  }
  return targets;
}
