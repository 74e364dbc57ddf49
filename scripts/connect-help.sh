#!/usr/bin/env bash
# Prints, on stderr, how to connect an MCP client to glovebox: the HTTP
# endpoint `make run` serves, and the stdio alternative.
bin="$1"
listen="${2:-127.0.0.1:7800}"
url="http://${listen}/mcp"
cat >&2 <<MSG

glovebox is starting on ${url} (MCP Streamable HTTP, loopback only).

  Claude Code:
    claude mcp add --transport http glovebox ${url}

  Cursor, Claude Desktop and MCP SDKs, JSON configuration:
    {
      "mcpServers": {
        "glovebox": { "type": "http", "url": "${url}" }
      }
    }

  2024-11-05 clients (HTTP+SSE):  http://${listen}/sse

  Or let the client start glovebox itself on stdio:
    claude mcp add glovebox -- $bin serve
    { "mcpServers": { "glovebox": { "command": "$bin", "args": ["serve"] } } }

Serving until Ctrl-C.
MSG
