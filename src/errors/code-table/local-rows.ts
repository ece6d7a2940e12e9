import { type CodeEntry, config, local } from "./entry.js";
import { duringHint, fileInTheWay, noCache, roomLeft } from "./hints.js";

/**
 * The rows of the local file system: the destination, the directory and its state folder, the
 * disk, the config, key and cache folders (cli-contract "Exit codes", "Untrusted text, paths and
 * caches").
 */
export const LOCAL_ROWS = {
  // one destination only, not the directory or the disk
  file_exists: local((c, d) => fileInTheWay(c, d), false, "item"),
  special_file: local(
    (c) =>
      c.has("--output")
        ? "Give -o a file path or a directory; to throw the bytes away or pipe them, use -o - (e.g. `-o - > /dev/null`)."
        : "Move it away: svc-dl only writes regular files.",
    false,
    "item",
  ),
  locked: local(
    (c) =>
      `Wait for the other run to finish${c.has("--wait-lock") ? " (or pass --wait-lock SECONDS to wait for it)" : ""}, or use another directory. A lock left by a crashed run expires by itself.`,
    true,
  ),
  // `during`: what svc-dl was doing besides a download (see duringHint), for the three codes
  // of a file-system failure
  no_space: local(
    (_c, d) =>
      duringHint(d) ??
      `Free some disk space and run the same command again; the partial data is kept${roomLeft(d)}.`,
    true,
  ),
  permission_denied: local(
    (c, d) =>
      duringHint(d) ??
      (c.has("--output")
        ? "Check the permissions of the output directory, or choose another with -o."
        : "Check the permissions of the directory and of the files in it."),
  ),
  // the part file changed under the download (`restart`): the next run starts it over
  // `inTheWay`: a file at `path`, where svc-dl's state folder goes
  write_failed: local(
    (_c, d) =>
      duringHint(d) ??
      (d.restart
        ? "Run the same command again; svc-dl starts the file over."
        : d.inTheWay
          ? `Move ${d.path} away; svc-dl keeps its bookkeeping in that directory.`
          : null),
    true,
  ),
  unsafe_output_path: local(
    "Move what is at that path away, or name another file: outside its own .svc-dl/ folder svc-dl writes only regular files, never through a symlink, FIFO, device or directory.",
  ),
  // `path`: the refused folder; `trash`: it is where prune moves files
  unsafe_state_dir: local((_c, d) =>
    typeof d.path !== "string"
      ? "The state folder is a symlink or not owned by you; move it away (svc-dl never follows a link it did not make)."
      : d.trash
        ? `Move ${d.path} away (svc-dl makes its trash itself and never follows a link it did not make), then run the same command again.`
        : `Check who made ${d.path}; if it is yours, make it a private directory (chmod 700 ${d.path}) or move it away (svc-dl then adopts the files it finds identical).`,
  ),
  config_unreadable: local((_c, d) =>
    d.permission === false
      ? "Set SVC_DL_CONFIG_DIR to a writable directory."
      : "Check the permissions of the config directory and file (`svc-dl config path` names them), or set SVC_DL_CONFIG_DIR to another directory.",
  ),
  config_invalid: config(
    (_c, d) =>
      `Fix or delete ${d.path ?? "the config file (`svc-dl config path`)"}: it holds base-url and the stored API keys.`,
  ),
  offline: local(
    (c) =>
      `These items are not in the cache or the directory: run ${c.command ? `\`svc-dl ${c.command}\`` : "the same command"} once without --offline (and without SVC_DL_OFFLINE) to fetch them into the cache; later --offline runs take them from there.`,
    false,
    "item",
  ),
  unsafe_key_file: local(
    "The key file must be a regular file of your own that only you can read (chmod 600 FILE), not a symlink; fix it or point SVC_API_KEY_FILE at another.",
  ),
  unsafe_config: local(
    "The API key is never stored where another user could read or replace it: use a private directory of your own (chmod 700), or set SVC_DL_CONFIG_DIR to one (`svc-dl config path` names the one in use).",
  ),
  // `doing`: what was refused (`check`: doctor's look); `unmarked`: the folder has no mark of
  // svc-dl's; `entry` in `root`: the entry svc-dl did not write
  unsafe_cache_dir: local(
    (c, d) =>
      `The cache directory is a symlink, not a directory, or not yours; point SVC_DL_CACHE_DIR at a directory only you can write${noCache(c, d)}.`,
  ),
  foreign_cache_dir: local((c, d) =>
    d.unmarked
      ? `SVC_DL_CACHE_DIR names a folder svc-dl did not create: point it at a new or empty directory${noCache(c, d)}.`
      : typeof d.entry === "string"
        ? `Move ${d.entry} out of ${d.root} (svc-dl deletes only what it wrote there), or point SVC_DL_CACHE_DIR at a new directory${noCache(c, d)}.`
        : `The cache directory holds something svc-dl did not write; point SVC_DL_CACHE_DIR at a new or empty directory${noCache(c, d)}.`,
  ),

  foreign_schedule_file: local(
    (c, d) =>
      `svc-dl rewrites only the unit files it wrote (their first line is its mark): move ${d.path ?? "that file"} away${c.has("--write") ? ", or run the same command without --write and merge the printed units into it by hand" : ""}.`,
  ),
} as const satisfies Record<string, CodeEntry>;
