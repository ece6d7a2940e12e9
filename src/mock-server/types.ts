/**
 * Public types of svc-dl-mock, the local mock of the asset download service
 * (`shared/spec/asset-download-service.md`), by area: the fixture, fault injection, and the
 * running service with its options. Everything here is part of the programmatic API agreed
 * in `docs/mock-service.md`.
 */
export type * from "./fault-types.js";
export type * from "./fixture-types.js";
export type * from "./service-types.js";
