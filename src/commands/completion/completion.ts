import { Command } from "commander";
import { examples, type OpenSession } from "../command-kit.js";

/** Builds `svc-dl completion bash|zsh|fish`; its run function (completion.run.ts) is loaded when it runs. */
export function completionCommand(open: OpenSession): Command {
  return new Command("completion")
    .description("print a shell completion script (bash, zsh or fish)")
    .argument("<shell>", "bash, zsh or fish")
    .addHelpText(
      "after",
      examples(
        "source <(svc-dl completion bash)",
        'svc-dl completion zsh > "$fpath[1]/_svc-dl"',
        "svc-dl completion fish > ~/.config/fish/completions/svc-dl.fish",
      ),
    )
    .action(async (shell: string, _opts: unknown, cmd: Command) => {
      const { runCompletion } = await import("./completion.run.js");
      let root: Command = cmd;
      while (root.parent) root = root.parent;
      runCompletion(open(cmd), root, shell);
    });
}
