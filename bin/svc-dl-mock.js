#!/usr/bin/env node
import { runCli } from "../dist/mock-server/cli.js";

process.exitCode = await runCli(process.argv.slice(2));
