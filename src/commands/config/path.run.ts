import type { ConfigPathDocument } from "../../documents/commands.js";
import type { Session } from "../../session.js";

/** `svc-dl config path`: prints the config file's absolute path (it may not exist yet). */
export async function runConfigPath(session: Session): Promise<void> {
  const path = (await session.config()).path;
  if (session.globals.json) session.printJson({ path } satisfies ConfigPathDocument);
  else session.print(path);
}
