#!/usr/bin/env bash
# Prints, on stderr, how to connect an MCP client to this glovebox binary.
bin="$1"
cat >&2 <<MSG

glovebox is starting on stdio (MCP over stdin/stdout).
Most clients start glovebox themselves; point them at this binary:

  Claude Code:
    claude mcp add glovebox -- $bin serve

  Other clients (Cursor, Claude Desktop, MCP SDKs), JSON configuration:
    {
      "mcpServers": {
        "glovebox": { "command": "$bin", "args": ["serve"] }
      }
    }

Waiting for an MCP client on stdin (Ctrl-C or Ctrl-D to stop).
MSG
