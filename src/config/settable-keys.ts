/** Keys `svc-dl config set/get/unset` accept (cli-contract "Configuration"); light for start-up. */
export const SETTABLE_KEYS = ["base-url", "proxy", "ca-file", "limit-rate"] as const;

/** One of {@link SETTABLE_KEYS}. */
export type SettableKey = (typeof SETTABLE_KEYS)[number];

/** The settable keys as the help texts name them: `base-url, proxy, ca-file or limit-rate`. */
export const SETTABLE_KEYS_TEXT = `${SETTABLE_KEYS.slice(0, -1).join(", ")} or ${SETTABLE_KEYS.at(-1)}`;
