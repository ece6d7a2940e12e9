/**
 * Injected ENOSPC for the full-disk tests where a small tmpfs cannot be mounted (not root, no
 * CAP_SYS_ADMIN). Loaded into the spawned CLI with `NODE_OPTIONS=--import <this file>`; with
 * `RELIABILITY_ENOSPC_AFTER=<bytes>` set, writes to files whose path ends in `.part` (svc-dl's
 * partial data) succeed for that many bytes in all, then fail with ENOSPC exactly as a full
 * disk does (a short write first, then the error). With `RELIABILITY_ENOSPC_ZERO=1` a
 * synchronous write that no longer fits returns 0 instead (a device that takes nothing and
 * reports no error: the writer must fail, not spin). Nothing else is touched. Test-only.
 */
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const limit = Number(process.env.RELIABILITY_ENOSPC_AFTER);
const zero = process.env.RELIABILITY_ENOSPC_ZERO === "1";

if (Number.isFinite(limit)) {
  const tracked = new Set();
  let written = 0;

  const enospc = () =>
    Object.assign(new Error("ENOSPC: no space left on device, write (injected)"), {
      code: "ENOSPC",
      errno: -28,
      syscall: "write",
    });
  /** Bytes of a write of `n` bytes to `fd` that still fit; -1 when the fd is not tracked. */
  const room = (fd, n) => {
    if (!tracked.has(fd)) return -1;
    const k = Math.max(0, Math.min(n, limit - written));
    written += k;
    return k;
  };
  const track = (path, fd) => {
    if (String(path).endsWith(".part")) tracked.add(fd);
  };

  const openSync = fs.openSync;
  fs.openSync = (path, ...rest) => {
    const fd = openSync(path, ...rest);
    track(path, fd);
    return fd;
  };
  const open = fs.open;
  fs.open = (path, ...rest) => {
    const cb = rest.pop();
    open(path, ...rest, (err, fd) => {
      if (!err) track(path, fd);
      cb(err, fd);
    });
  };
  const closeSync = fs.closeSync;
  fs.closeSync = (fd) => {
    tracked.delete(fd);
    return closeSync(fd);
  };

  const writeSync = fs.writeSync;
  fs.writeSync = (fd, buffer, ...rest) => {
    if (!tracked.has(fd) || !Buffer.isBuffer(buffer)) return writeSync(fd, buffer, ...rest);
    const [offset = 0, length = buffer.length - offset, position = null] = rest;
    const k = room(fd, length);
    if (k === 0 && zero) return 0;
    if (k === 0) throw enospc();
    return writeSync(fd, buffer, offset, k, position);
  };
  const writevSync = fs.writevSync;
  fs.writevSync = (fd, buffers, position) => {
    if (!tracked.has(fd)) return writevSync(fd, buffers, position);
    const all = Buffer.concat(buffers);
    const k = room(fd, all.length);
    if (k === 0) throw enospc();
    return writeSync(fd, all, 0, k, position ?? null);
  };
  const write = fs.write;
  fs.write = (fd, buffer, ...rest) => {
    const cb = rest.pop();
    if (!tracked.has(fd) || !Buffer.isBuffer(buffer)) {
      write(fd, buffer, ...rest, cb);
      return;
    }
    const [offset = 0, length = buffer.length - offset, position = null] = rest;
    const k = room(fd, length);
    if (k === 0) {
      process.nextTick(() => cb(enospc()));
      return;
    }
    write(fd, buffer, offset, k, position, cb);
  };
  syncBuiltinESMExports();
}
