/**
 * What a format check found wrong with a file (cli-contract "Integrity"): a short reason, and
 * for a ZIP the entry (its name as stored, decoded as UTF-8) and the byte offset of its local
 * header, or for any file the offset where the bad structure is. Names are untrusted text: the
 * printers escape them (src/io/terminal-text.ts).
 */
export interface Damage {
  /** What is wrong, e.g. `CRC-32 is 1a2b3c4d, the archive records 5e6f7a8b`. */
  reason: string;
  /** The ZIP entry the damage is in, when it is in one. */
  entry?: string;
  /** Byte offset (from the start of the file) of the damaged structure or entry. */
  offset?: number;
}

/** One line for messages: `entry "a/b.glb" at byte 1234: <reason>` (or the parts that are known). */
export function describeDamage(damage: Damage): string {
  const entry = damage.entry !== undefined ? `entry ${quoteName(damage.entry)}` : undefined;
  const at = damage.offset !== undefined ? `at byte ${damage.offset}` : undefined;
  const where = [entry, at].filter((s) => s !== undefined).join(" ");
  return where === "" ? damage.reason : `${where}: ${damage.reason}`;
}

function quoteName(name: string): string {
  return name.length > 120 ? `${JSON.stringify(name.slice(0, 120))}…` : JSON.stringify(name);
}

/** A CRC-32 as 8 lower-case hex digits. */
export function hex(crc: number): string {
  return (crc >>> 0).toString(16).padStart(8, "0");
}
