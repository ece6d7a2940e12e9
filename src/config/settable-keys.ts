/** Keys `svc-dl config set/get/unset` accept (cli-contract "Configuration"); light for start-up. */
export const SETTABLE_KEYS = ["base-url", "proxy", "ca-file", "limit-rate"] as const;

/** One of {@link SETTABLE_KEYS}. */
export type SettableKey = (typeof SETTABLE_KEYS)[number];
