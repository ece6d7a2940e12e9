#!/usr/bin/env node
import { main } from "../dist/cli.js";
import { systemContext } from "../dist/context.js";

process.exitCode = await main(process.argv.slice(2), systemContext());
