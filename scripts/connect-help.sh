#!/usr/bin/env bash
# `make run`: starts glovebox on HTTP with the given policy and, once it has
# bound its sockets, prints on stderr how to connect an MCP client to the
# address it reports (read from its "serving MCP on" line, which comes from
# the bound sockets), and the stdio alternative.
#   scripts/connect-help.sh BINARY [LISTEN] [POLICY]
bin="$1"
listen="${2:-127.0.0.1:7800}"
policy="${3:-scripts/demo-policy.json}"

help() {
    local url="$1" also="$2"
    local base="${url%/mcp}"
    cat >&2 <<MSG

glovebox is listening on ${url}${also:+ (also ${also})} (MCP Streamable HTTP).

  Policy: ${policy} (the demo policy: what it allows is listed in that file).
  Give your own with:  ${bin} serve --policy PATH --http ${listen}
  (glovebox policy init writes a starter file; see docs/policy.md.)

  Claude Code:
    claude mcp add --transport http glovebox ${url}

  Cursor, Claude Desktop and MCP SDKs, JSON configuration:
    {
      "mcpServers": {
        "glovebox": { "type": "http", "url": "${url}" }
      }
    }

  2024-11-05 clients (HTTP+SSE):  ${base}/sse

  Or let the client start glovebox itself on stdio. Without --policy glovebox
  uses your own ~/.config/glovebox/policy.json if there is one, and otherwise
  runs read-only (it can look, not type or start programs); a project's
  ./.glovebox/policy.json can only narrow either. Give the policy to run with:
    claude mcp add glovebox -- $bin serve --policy /path/to/policy.json
    { "mcpServers": { "glovebox": { "command": "$bin",
        "args": ["serve", "--policy", "/path/to/policy.json"] } } }

Serving until Ctrl-C.
MSG
}

# Passes glovebox's stderr through and prints the help after the line that
# says where it listens. Ctrl-C reaches the whole process group: this reader
# ignores it and ends with glovebox's stderr, so no shutdown message is lost.
watch() {
    trap '' INT TERM
    local line re='serving MCP on ([^ ]+)( \(also ([^)]*)\))?'
    while IFS= read -r line; do
        printf '%s\n' "$line" >&2
        if [[ $line =~ $re ]]; then
            help "${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}"
        fi
    done
}

exec "$bin" serve --policy "$policy" --http "$listen" 2> >(watch)
