import { existsSync, type FSWatcher, watch } from "node:fs";
import { dirname } from "node:path";

// Waiting for something a run does, by event instead of sleeping: the directory is watched
// (fs.watch) and the condition re-checked on every change, and once right after the watcher
// is armed, since a change made before that would never be reported.

/** Options of {@link whenInDir}. */
export interface WhenOptions {
  /** What is awaited, for the error message. */
  what: string;
  /**
   * The run's end (a child's `done`, an in-process run's promise): if it settles before the
   * condition holds, the wait rejects instead of hanging until the test times out.
   */
  until?: Promise<unknown>;
}

/** `path` or its nearest ancestor that exists. */
function nearestExisting(path: string): string {
  let at = path;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  return at;
}

/**
 * Resolves once `check()` returns true, re-checking whenever an entry of directory `dir`
 * changes (created, renamed, removed, written to). While `dir` does not exist yet, its nearest
 * existing ancestor is watched, then `dir` once it appears. Rejects when `check` throws or
 * when `opts.until` settles first.
 */
export function whenInDir(dir: string, check: () => boolean, opts: WhenOptions): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let watcher: FSWatcher | undefined;
    let watched = "";
    let done = false;
    const finish = (error?: unknown): void => {
      if (done) return;
      done = true;
      watcher?.close();
      if (error === undefined) resolve();
      else reject(error);
    };
    const recheck = (): void => {
      if (done) return;
      let holds: boolean;
      try {
        holds = check();
      } catch (e) {
        finish(e);
        return;
      }
      if (holds) {
        finish();
        return;
      }
      const target = nearestExisting(dir);
      if (target === watched) return;
      watcher?.close();
      watched = target;
      watcher = watch(target, recheck);
      // the watched directory went away: watch its nearest ancestor again
      watcher.on("error", () => {
        watched = "";
        recheck();
      });
      recheck();
    };
    opts.until?.then(
      () => {
        recheck();
        finish(new Error(`the run ended before ${opts.what}`));
      },
      (e: unknown) => finish(e),
    );
    recheck();
  });
}
