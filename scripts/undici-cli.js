/**
 * The part of undici the program uses, for the CLI bundle only (scripts/build.js resolves
 * `undici` to this file there; the library, dist/index.js, imports the real package).
 *
 * undici's index.js loads all of undici (fetch, WebSocket, cache stores, mocks, interceptors)
 * and, through its cookies module, Node's own copy of undici as well: about 40 ms of CPU and
 * 8 MiB at every start for code the program never runs (docs/performance.md "Start-up"). A name
 * that src/ imports from "undici" and this file does not export fails the build.
 */
import api from "undici/lib/api/index.js";
import buildConnector from "undici/lib/core/connect.js";
import Agent from "undici/lib/dispatcher/agent.js";
import Client from "undici/lib/dispatcher/client.js";
import Dispatcher from "undici/lib/dispatcher/dispatcher.js";
import Pool from "undici/lib/dispatcher/pool.js";
import ProxyAgent from "undici/lib/dispatcher/proxy-agent.js";

// As undici's index.js does: request(), connect() (ProxyAgent's CONNECT tunnel) and the rest.
Object.assign(Dispatcher.prototype, api);

export { Agent, buildConnector, Client, Dispatcher, Pool, ProxyAgent };
