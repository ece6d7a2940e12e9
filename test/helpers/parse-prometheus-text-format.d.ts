/** Types of the `parse-prometheus-text-format` package (it ships none). */
declare module "parse-prometheus-text-format" {
  /** One sample: its value as written and its labels. */
  export interface ParsedSample {
    value?: string;
    labels?: Record<string, string>;
  }
  /** One metric family. */
  export interface ParsedFamily {
    name: string;
    help: string;
    type: string;
    metrics: ParsedSample[];
  }
  /** Parses Prometheus text exposition format; throws on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
