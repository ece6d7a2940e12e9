import type { FileProgress } from "../io/progress.js";
import type { ProgressCallback } from "./types.js";

/**
 * Turns the engine's {@link FileProgress} into `onProgress({ bytes, total })` calls: one when a
 * transfer starts (bytes = the resumed offset), one per chunk, one when the file is done
 * (bytes = total). Prints nothing. Without a callback, a sink that does nothing.
 */
export function progressFor(onProgress: ProgressCallback | undefined): FileProgress {
  let bytes = 0;
  let total: number | undefined;
  const emit = (): void => onProgress?.({ bytes, total });
  return {
    start(info) {
      bytes = info.offset;
      total = info.total;
      emit();
    },
    advance(n) {
      bytes += n;
      emit();
    },
    done(info) {
      bytes = info.bytes;
      total = info.bytes;
      emit();
    },
    stop() {},
  };
}
