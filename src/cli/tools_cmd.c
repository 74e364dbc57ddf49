/* glovebox tools: the tool list as tools/list shows it, for docs and review. */
#include "cli/cli.h"
#include "mcp/registry.h"
#include "mcp/server.h"
#include "tools/tools.h"

#include <stdio.h>
#include <string.h>

int cli_tools(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            puts("Usage: glovebox tools\n"
                 "\n"
                 "Prints every tool (name, title, description, input and output schema,\n"
                 "annotations) as a JSON array, as an MCP client sees it in tools/list.");
            return EXIT_OK;
        }
        fprintf(stderr, "glovebox tools: unknown option \"%s\" (try --help)\n", argv[i]);
        return EXIT_USAGE;
    }
    registry_list_output_schemas(true);
    tools_register_all();
    cli_register_extra_tools();
    json_t *arr = json_array();
    for (size_t i = 0; i < registry_count(); i++)
        json_array_append_new(arr, registry_tool_json(registry_at(i), true, true));
    char *s = json_dumps(arr, JSON_INDENT(2));
    puts(s);
    free(s);
    json_decref(arr);
    mcp_server_finish();
    return EXIT_OK;
}
