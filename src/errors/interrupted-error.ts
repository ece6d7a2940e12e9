import { SvcError } from "./svc-error.js";

/** The run was stopped by SIGINT (exit 130) or SIGTERM (exit 143); partial data is kept. */
export class InterruptedError extends SvcError {
  override name = "InterruptedError";
  constructor(signal: "SIGINT" | "SIGTERM") {
    super(`interrupted by ${signal}; partial data kept, run the same command again to resume`, {
      code: "interrupted",
      exitCode: signal === "SIGINT" ? 130 : 143,
    });
  }
}
