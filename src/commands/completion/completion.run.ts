import type { Command, Option } from "commander";
import { SETTABLE_KEYS } from "../../config/settable-keys.js";
import { UsageError } from "../../errors/usage-error.js";
import { HELP_TOPIC_NAMES } from "../../help-topics.js";
import type { Session } from "../../session.js";

/** Shells `svc-dl completion` writes scripts for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** One command of the tree, as the completion scripts see it. */
interface Node {
  /** Words from the root, e.g. `["svc-dl", "auth", "login"]`. */
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flags: string[]; description: string; takesValue: boolean; values: string[] }[];
  /** Values the first argument takes (shells, config keys), when it has a fixed set. */
  argValues: readonly string[];
}

/** Fixed values of a command's first argument, by command path. */
const ARGUMENT_VALUES: Readonly<Record<string, readonly string[]>> = {
  "svc-dl completion": SHELLS,
  "svc-dl config get": SETTABLE_KEYS,
  "svc-dl config set": SETTABLE_KEYS,
  "svc-dl config unset": SETTABLE_KEYS,
};

function optionsOf(cmd: Command): Node["options"] {
  const options: readonly Option[] = cmd.options;
  const out: Node["options"] = options
    .filter((o) => !o.hidden)
    .map((o) => ({
      flags: [o.short, o.long].filter((f): f is string => typeof f === "string"),
      description: o.description,
      takesValue: o.required || o.optional,
      values: o.argChoices ?? [],
    }));
  out.push({
    flags: ["-h", "--help"],
    description: "show help for a command",
    takesValue: false,
    values: [],
  });
  return out;
}

/** Walks the commander tree into a flat list of nodes, root first. */
function collect(cmd: Command, path: string[], out: Node[]): Node[] {
  const subs = cmd.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden);
  out.push({
    path,
    description: cmd.description(),
    subcommands: subs.map((c) => ({ name: c.name(), description: firstLine(c.description()) })),
    options: optionsOf(cmd),
    argValues: ARGUMENT_VALUES[path.join(" ")] ?? [],
  });
  for (const sub of subs) collect(sub, [...path, sub.name()], out);
  return out;
}

/**
 * Adds `help` (commander's implicit command) to the root, completing to the commands and the
 * help topics (`svc-dl help exit-codes`).
 */
function withHelp(nodes: Node[]): Node[] {
  const [root, ...rest] = nodes;
  if (!root) return nodes;
  const help: Node = {
    path: [...root.path, "help"],
    description: "show help for a command or a topic",
    subcommands: [],
    options: [],
    argValues: [...root.subcommands.map((s) => s.name), ...HELP_TOPIC_NAMES],
  };
  const withSub = {
    ...root,
    subcommands: [...root.subcommands, { name: "help", description: help.description }],
  };
  return [withSub, ...rest, help];
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? "";
}

/** Single-quotes a word for bash/zsh/fish. */
function q(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Options of the root that apply below it too (`--version` and `--help` do not repeat). */
function inherited(nodes: Node[]): Node["options"] {
  return (nodes[0]?.options ?? []).filter(
    (o) => !o.flags.includes("--version") && !o.flags.includes("--help"),
  );
}

function bashScript(nodes: Node[]): string {
  const globals = inherited(nodes);
  const valued = new Set<string>();
  for (const n of nodes)
    for (const o of n.options) if (o.takesValue) for (const f of o.flags) valued.add(f);
  const nested = nodes.filter((n) => n.path.length > 1).map((n) => n.path.join(" "));
  const cases = nodes
    .map((n) => {
      const words = [
        ...n.subcommands.map((s) => s.name),
        ...n.argValues,
        ...n.options.flatMap((o) => o.flags),
        ...(n.path.length > 1 ? globals.flatMap((o) => o.flags) : []),
      ];
      return `    ${q(n.path.join(" "))}) words=${q([...new Set(words)].join(" "))} ;;`;
    })
    .join("\n");
  const valueCases = nodes
    .flatMap((n) =>
      n.options
        .filter((o) => o.values.length > 0)
        .flatMap((o) =>
          o.flags.map(
            (f) => `    ${q(`${n.path.join(" ")} ${f}`)}) words=${q(o.values.join(" "))} ;;`,
          ),
        ),
    )
    .join("\n");
  return `# bash completion for svc-dl. Install:
#   svc-dl completion bash > ~/.local/share/bash-completion/completions/svc-dl
# or add to ~/.bashrc:  source <(svc-dl completion bash)
_svc_dl_complete() {
  local cur prev cmdpath w i words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev=""
  if (( COMP_CWORD > 0 )); then prev="\${COMP_WORDS[COMP_CWORD-1]}"; fi
  cmdpath="svc-dl"
  for (( i = 1; i < COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    case "$cmdpath $w" in
      ${nested.map(q).join("|") || "''"}) cmdpath="$cmdpath $w" ;;
    esac
  done
  words=""
  case "$cmdpath $prev" in
${valueCases}
  esac
  if [[ -n "$words" ]]; then
    COMPREPLY=( $(compgen -W "$words" -- "$cur") )
    return 0
  fi
  case "$prev" in
    ${[...valued].map(q).join("|") || "''"}) return 0 ;;
  esac
  case "$cmdpath" in
${cases}
    *) words="" ;;
  esac
  COMPREPLY=( $(compgen -W "$words" -- "$cur") )
  return 0
}
complete -o default -F _svc_dl_complete svc-dl
`;
}

function zshEscape(text: string): string {
  return text.replace(/:/g, "\\:");
}

function zshScript(nodes: Node[]): string {
  const globals = inherited(nodes);
  const nested = nodes.filter((n) => n.path.length > 1).map((n) => n.path.join(" "));
  const cases = nodes
    .map((n) => {
      const cmds = n.subcommands.map((s) => q(`${zshEscape(s.name)}:${zshEscape(s.description)}`));
      const opts = [...n.options, ...(n.path.length > 1 ? globals : [])].flatMap((o) =>
        o.flags.map((f) => q(`${zshEscape(f)}:${zshEscape(o.description)}`)),
      );
      const values = n.options
        .filter((o) => o.values.length > 0)
        .flatMap((o) => o.flags.map((f) => `${f}) vals=(${o.values.map(q).join(" ")}) ;;`));
      return `    ${q(n.path.join(" "))})
      cmds=(${[...cmds, ...n.argValues.map(q)].join(" ")})
      opts=(${[...new Set(opts)].join(" ")})
      case "\${words[CURRENT-1]}" in ${values.join(" ")} esac
      ;;`;
    })
    .join("\n");
  return `#compdef svc-dl
# zsh completion for svc-dl. Install: svc-dl completion zsh > "\${fpath[1]}/_svc-dl"
# or add to ~/.zshrc (after compinit):  source <(svc-dl completion zsh)
_svc_dl() {
  local cmdpath="svc-dl" w i
  local -a cmds opts vals
  for (( i = 2; i < CURRENT; i++ )); do
    w="\${words[i]}"
    case "$cmdpath $w" in
      ${nested.map(q).join("|") || "''"}) cmdpath="$cmdpath $w" ;;
    esac
  done
  case "$cmdpath" in
${cases}
  esac
  if (( \${#vals} )); then
    compadd -a vals
  elif [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t options 'option' opts
  else
    _describe -t commands 'command' cmds || _files
  fi
}
if [[ "\${funcstack[1]}" == "_svc-dl" ]]; then
  _svc_dl "$@"
else
  compdef _svc_dl svc-dl
fi
`;
}

function fishScript(nodes: Node[]): string {
  const lines = [
    "# fish completion for svc-dl. Install:",
    "#   svc-dl completion fish > ~/.config/fish/completions/svc-dl.fish",
  ];
  for (const n of nodes) {
    const [, noun, verb] = n.path;
    let condition: string;
    if (n.path.length === 1) condition = "__fish_use_subcommand";
    else if (n.path.length === 2 && noun) {
      const verbs = n.subcommands.map((s) => s.name);
      condition =
        verbs.length > 0
          ? `__fish_seen_subcommand_from ${noun}; and not __fish_seen_subcommand_from ${verbs.join(" ")}`
          : `__fish_seen_subcommand_from ${noun}`;
    } else {
      condition = `__fish_seen_subcommand_from ${noun ?? ""}; and __fish_seen_subcommand_from ${verb ?? ""}`;
    }
    for (const s of n.subcommands) {
      lines.push(`complete -c svc-dl -f -n ${q(condition)} -a ${q(s.name)} -d ${q(s.description)}`);
    }
    if (n.argValues.length > 0) {
      lines.push(`complete -c svc-dl -f -n ${q(condition)} -a ${q(n.argValues.join(" "))}`);
    }
    for (const o of n.options) {
      const parts = ["complete -c svc-dl"];
      if (n.path.length > 1) parts.push(`-n ${q(condition.replace(/; and not .*$/, ""))}`);
      for (const f of o.flags) {
        if (f.startsWith("--")) parts.push(`-l ${f.slice(2)}`);
        else parts.push(`-s ${f.slice(1)}`);
      }
      if (o.values.length > 0) parts.push(`-x -a ${q(o.values.join(" "))}`);
      else if (o.takesValue) parts.push("-r");
      parts.push(`-d ${q(o.description)}`);
      lines.push(parts.join(" "));
    }
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The completion script of `shell` for the whole command tree under `root` (every command,
 * subcommand and option, global options offered everywhere). Throws UsageError (exit 2) for a
 * shell other than bash, zsh or fish.
 */
export function completionScript(root: Command, shell: string): string {
  const nodes = withHelp(collect(root, [root.name()], []));
  if (shell === "bash") return bashScript(nodes);
  if (shell === "zsh") return zshScript(nodes);
  if (shell === "fish") return fishScript(nodes);
  throw new UsageError(`no completion for shell ${JSON.stringify(shell)}`, {
    code: "unknown_shell",
    detail: { supported: SHELLS.join(", ") },
  });
}

/**
 * `svc-dl completion SHELL`: prints the completion script of the command tree under `root` to
 * stdout; needs no config or key. Throws UsageError (exit 2) for an unknown shell.
 */
export function runCompletion(session: Session, root: Command, shell: string): void {
  session.ctx.io.stdout.write(completionScript(root, shell));
}
