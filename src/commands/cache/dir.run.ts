import { cacheDirFrom } from "../../cache/location.js";
import type { CacheDirDocument } from "../../documents/commands.js";
import type { Session } from "../../session.js";

/** `svc-dl cache dir`: prints the cache's path on stdout (`--json`: `{"dir"}`). */
export async function runCacheDir(session: Session): Promise<void> {
  const dir = await cacheDirFrom(session.ctx.env, session.ctx.cwd);
  if (session.globals.json) session.printJson({ dir } satisfies CacheDirDocument);
  else session.print(dir);
}
