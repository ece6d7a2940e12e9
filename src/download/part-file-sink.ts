import { FileSystemError } from "../errors/file-system-error.js";
import { fsError } from "../errors/fs-error.js";
import type { HttpResponse } from "../http/client.js";
import { headerValue } from "../http/client.js";
import { type FormatVerdict, ZipStreamCheck } from "../integrity/zip-stream-check.js";
import { syncFileAsync } from "../io/durable.js";
import type { FileProgress } from "../io/progress.js";
import { nameFromContentDisposition } from "../outdir/names.js";
import {
  type PartialMeta,
  type PartialPaths,
  partialPaths,
  preparePartialData,
  readPartial,
  removePartial,
  writePartialMeta,
} from "../outdir/partial.js";
import type { ItemRef } from "../outdir/state.js";
import { type BodyHead, type DownloadSink, isStrongEtag, type ResumePoint } from "./sink.js";
import { DEFAULT_TUNING, type HashingFileWriter, openHashingWriter } from "./writer.js";

/** A complete file in the part file, ready to be checked and renamed into place. */
export interface CompletePart {
  name: string;
  bytes: number;
  sha256: string;
  etag: string | null;
  /** Bytes that were already on disk when this call first resumed; 0 when it started from zero. */
  resumedFrom: number;
  response: HttpResponse;
  /**
   * A pack's ZIP check while it was read back (src/integrity/zip-stream-check.ts): `sound`
   * spares the engine a second read of the file; absent or `unsure`, `findDamage` decides.
   */
  formatVerdict?: FormatVerdict;
}

/** Options of {@link PartFileSink}. */
export interface PartFileSinkOptions {
  dir: string;
  item: ItemRef;
  /** ETag of the recorded file to revalidate with `If-None-Match`, if any. */
  conditionalEtag: string | undefined;
  progress: FileProgress;
  progressLabel: string | undefined;
  /**
   * The final file name for the server's name (Content-Disposition, or the partial's recorded
   * name), after the one-name-one-item and destination checks; throws `file_exists`.
   */
  chooseName: (server: string | undefined) => string;
}

/**
 * The part-file sink of {@link fetchBody} (cli-contract "Downloads"): partial data in
 * `<dir>/.svc-dl/<kind>-<edition>-<slug>.part` with its ETag and total (-1 while unknown, after
 * a chunked response) in `.part.json`, hashed (SHA-256) while written, resumable whenever its
 * ETag is strong, even without a known size. Returns a {@link CompletePart} or `unchanged`;
 * the engine checks the format, renames and records.
 */
export class PartFileSink implements DownloadSink<CompletePart | "unchanged"> {
  readonly conditionalEtag: string | undefined;
  readonly paths: PartialPaths;
  readonly #opts: PartFileSinkOptions;
  #writer: HashingFileWriter | undefined;
  /** The current attempt's ZIP check (a pack), fed by its writer's read-back from offset 0. */
  #check: ZipStreamCheck | undefined;
  #name: string | undefined;
  /** Start offset of the first transfer of the current version (undefined after a restart). */
  #chainStart: number | undefined;

  constructor(opts: PartFileSinkOptions) {
    this.#opts = opts;
    this.conditionalEtag = opts.conditionalEtag;
    this.paths = partialPaths(opts.dir, opts.item);
  }

  resumePoint(): ResumePoint | undefined {
    const partial = readPartial(this.paths, this.#opts.item);
    if (!partial) return undefined;
    if (!isStrongEtag(partial.meta.etag)) {
      removePartial(this.paths);
      return undefined;
    }
    const { meta } = partial;
    return {
      offset: partial.bytes,
      etag: meta.etag,
      total: meta.total >= 0 ? meta.total : undefined,
    };
  }

  unchanged(): "unchanged" {
    return "unchanged";
  }

  async completeOnDisk(res: HttpResponse, total: number): Promise<CompletePart> {
    const partial = readPartial(this.paths, this.#opts.item);
    const name = this.#opts.chooseName(partial?.meta.file);
    this.#chainStart ??= total;
    const writer = this.#openWriter(total);
    writer.close();
    await this.#makeDurable(writer);
    this.#opts.progress.start({ name, total, offset: total, ...this.#label() });
    return {
      name,
      bytes: writer.bytes,
      sha256: await writer.digest(),
      etag: partial?.meta.etag ?? null,
      resumedFrom: this.#chainStart,
      response: res,
      ...(await this.#verdict()),
    };
  }

  begin(res: HttpResponse, head: BodyHead): undefined {
    const partial = head.start > 0 ? readPartial(this.paths, this.#opts.item) : undefined;
    const name = this.#opts.chooseName(
      nameFromContentDisposition(headerValue(res.headers, "content-disposition")) ??
        partial?.meta.file,
    );
    if (head.start === 0 || (partial && partial.meta.total < 0 && head.total !== undefined)) {
      const meta: PartialMeta = {
        version: 1,
        ...this.#opts.item,
        etag: head.etag ?? "",
        total: head.total ?? -1,
        file: name,
        started_at: partial?.meta.started_at ?? new Date().toISOString(),
      };
      writePartialMeta(this.paths, meta);
    }
    preparePartialData(this.paths, head.start); // never write through a link at the .part path
    const writer = this.#openWriter(head.start);
    if (writer.bytes !== head.start) {
      writer.close();
      removePartial(this.paths);
      throw new FileSystemError(
        `the partial data in ${this.paths.data} changed during the download`,
        {
          code: "write_failed",
          detail: { restart: true },
        },
      );
    }
    this.#writer = writer;
    this.#name = name;
    this.#chainStart ??= head.start;
    this.#opts.progress.start({ name, total: head.total, offset: head.start, ...this.#label() });
    return undefined;
  }

  write(chunk: Buffer): undefined {
    this.#writer?.write(chunk);
    this.#opts.progress.advance(chunk.length);
    return undefined;
  }

  lend(): Buffer | undefined {
    return this.#writer?.lend();
  }

  bytes(): number {
    return this.#writer?.bytes ?? 0;
  }

  end(): void {
    try {
      this.#writer?.flush();
    } finally {
      try {
        this.#writer?.close();
      } catch {
        // the first error is the one to report
      }
    }
  }

  reset(): void {
    removePartial(this.paths);
    this.#chainStart = undefined;
  }

  async finish(res: HttpResponse, head: BodyHead): Promise<CompletePart> {
    const writer = this.#writer;
    if (!writer || this.#name === undefined) throw new Error("finish before begin");
    writer.close();
    await this.#makeDurable(writer);
    return {
      name: this.#name,
      bytes: writer.bytes,
      sha256: await writer.digest(),
      etag: head.etag,
      resumedFrom: this.#chainStart ?? 0,
      response: res,
      ...(await this.#verdict()),
    };
  }

  /**
   * Opens the part file's writer keeping `keep` bytes; for a pack, a new ZIP check follows its
   * read-back from offset 0 (the kept part included).
   */
  #openWriter(keep: number): HashingFileWriter {
    this.#check?.abandon(); // an earlier attempt's check
    this.#check = this.#opts.item.kind === "pack" ? new ZipStreamCheck() : undefined;
    const consumers = this.#check ? [this.#check] : [];
    return openHashingWriter(this.paths.data, keep, { ...DEFAULT_TUNING, consumers });
  }

  /** The ZIP check's verdict on the part file (after its digest: the whole file was read back). */
  async #verdict(): Promise<{ formatVerdict?: FormatVerdict }> {
    const check = this.#check;
    this.#check = undefined;
    return check ? { formatVerdict: await check.settle(this.paths.data) } : {};
  }

  /** The part's bytes on the disk before the engine renames it (src/io/durable.ts). */
  async #makeDurable(writer: HashingFileWriter): Promise<void> {
    await writer.settled();
    try {
      await syncFileAsync(this.paths.data);
    } catch (err) {
      throw fsError(`cannot write ${this.paths.data}`, err);
    }
  }

  #label(): { label?: string } {
    return this.#opts.progressLabel !== undefined ? { label: this.#opts.progressLabel } : {};
  }
}
