/**
 * The part of prom-client the program uses, for the CLI bundle only (scripts/build.js resolves
 * `prom-client` to this file there; the library, dist/index.js, imports the real package).
 *
 * src/run/metrics.ts writes a few gauges with a `Registry` and `Gauge`. prom-client's index.js
 * loads every metric type, the default process metrics (and with them @opentelemetry/api),
 * the Pushgateway client and the cluster aggregator: about 110 kB of the package that the
 * program never runs. `scripts/build.js` fails the build when a module under src/ takes another
 * name from prom-client, or when index.js no longer requires these two from these paths.
 */
import Gauge from "prom-client/lib/gauge.js";
import Registry from "prom-client/lib/registry.js";

export { Gauge, Registry };
/** As prom-client's CommonJS exports appear to `import()`: `(await import(…)).default`. */
export default { Gauge, Registry };
