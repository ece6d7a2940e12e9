/** The unattended-run options of a multi-item command (cli-contract "Operating unattended"). */
export interface RunSinkOptions {
  /** `--report FILE`: the run's JSON document, written atomically on every exit. */
  report?: string | undefined;
  /** `--metrics FILE`: Prometheus text format for node_exporter's textfile collector. */
  metrics?: string | undefined;
  /** `--on-item CMD`: a `/bin/sh -c` hook per settled item. */
  onItem?: string | undefined;
  /** `--on-done CMD`: a `/bin/sh -c` hook after the run, however it ends. */
  onDone?: string | undefined;
}

/** The run sinks of a command's options (`--report`, `--metrics`, `--on-item`, `--on-done`), and nothing else. */
export function runSinks(opts: RunSinkOptions): RunSinkOptions {
  return { report: opts.report, metrics: opts.metrics, onItem: opts.onItem, onDone: opts.onDone };
}

/** True when one of the sinks is set: the command then runs as a recorded run. */
export function anySink(sinks: RunSinkOptions): boolean {
  return Object.values(sinks).some((v) => v !== undefined);
}
