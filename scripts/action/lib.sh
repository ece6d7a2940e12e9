# Helpers of the action's step scripts (action.yml), sourced by them.

# put FILE NAME VALUE: appends NAME=VALUE to a GitHub file command (GITHUB_OUTPUT, GITHUB_ENV).
# A value holding a line break is refused (the step fails): it could add a line of its own, i.e.
# set another output or environment variable.
put() {
  case "$3" in
    *$'\n'* | *$'\r'*)
      echo "::error::refusing to set $2: its value holds a line break" >&2
      exit 1
      ;;
  esac
  printf '%s=%s\n' "$2" "$3" >>"${1:?a GitHub file command path is not set}"
}
