import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A self-signed certificate made by the machine's openssl, PEM text and the file of the cert. */
export interface SelfSignedCert {
  key: string;
  cert: string;
  /** Path of the certificate file (for NODE_EXTRA_CA_CERTS). */
  caFile: string;
}

/**
 * Makes a throw-away self-signed certificate whose subjectAltName is `altNames` (e.g.
 * `DNS:localhost`, `IP:127.0.0.1`), valid for two days. Returns undefined when openssl is
 * missing or fails.
 */
export function makeSelfSignedCert(altNames: string[]): SelfSignedCert | undefined {
  const dir = mkdtempSync(join(tmpdir(), "svc-dl-tls-"));
  const keyFile = join(dir, "key.pem");
  const caFile = join(dir, "cert.pem");
  const made = spawnSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-days",
      "2",
      "-subj",
      "/CN=svc-dl test",
      "-addext",
      `subjectAltName=${altNames.join(",")}`,
      "-keyout",
      keyFile,
      "-out",
      caFile,
    ],
    { stdio: "ignore" },
  );
  if (made.status !== 0) return undefined;
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(caFile, "utf8"), caFile };
}
