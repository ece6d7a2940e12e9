import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";
import { loginCommand } from "./login.js";
import { logoutCommand } from "./logout.js";
import { authStatusCommand } from "./status.js";

/** The `auth` noun: login, logout, status (cli-contract "auth"). `whoami` is a top-level verb. */
export function authCommand(open: OpenSession): Command {
  return new Command("auth")
    .description("store, check or remove the API key for a service address")
    .addHelpText("after", examples("svc-dl auth login", "svc-dl auth status", "svc-dl auth logout"))
    .addCommand(loginCommand(open))
    .addCommand(logoutCommand(open))
    .addCommand(authStatusCommand(open));
}
