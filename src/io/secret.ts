import type { Readable, Writable } from "node:stream";
import { CancelledError } from "../errors/interrupted-error.js";
import { UsageError } from "../errors/usage-error.js";

/** Most bytes read from stdin for a key; API and license keys are well under 100 characters. */
export const SECRET_INPUT_LIMIT = 64 * 1024;

/**
 * Reads a secret piped on stdin to its end, as trimmed UTF-8 text, at most
 * {@link SECRET_INPUT_LIMIT} bytes. Throws UsageError `invalid_key_input` (exit 2) past the cap;
 * the message never repeats the input.
 */
export async function readSecretFromStream(stream: Readable, what: string): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > SECRET_INPUT_LIMIT) {
      throw new UsageError(`stdin holds more than 64 KiB; expected one ${what}`, {
        code: "invalid_key_input",
      });
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8").trim();
}

/**
 * Asks for a secret on the terminal with echo off (the prompt goes to `output`, stderr), and
 * ends the prompt's line once answered. Trimmed. Ctrl-C or Ctrl-D at the prompt throws
 * CancelledError (exit 130, "cancelled"): nothing was started, so nothing is said about
 * downloads.
 */
export async function promptSecret(
  prompt: string,
  io: { stdin: Readable; stderr: Writable },
): Promise<string> {
  const { read } = await import("read");
  let onEnd: (() => void) | undefined;
  // stdin closing before an answer (Ctrl-D on a line, a closed pipe) is a cancel too
  const ended = new Promise<never>((_resolve, reject) => {
    onEnd = () => reject(new Error("canceled"));
    io.stdin.once("end", onEnd);
  });
  try {
    const value = await Promise.race([
      read({
        prompt,
        silent: true,
        replace: "",
        input: io.stdin,
        output: io.stderr,
        terminal: true,
      }),
      ended,
    ]);
    // echo is off, so the Enter the user typed did not end the line: end it here
    io.stderr.write("\n");
    return String(value).trim();
  } catch {
    io.stderr.write("\n");
    throw new CancelledError();
  } finally {
    if (onEnd) io.stdin.off("end", onEnd);
  }
}
