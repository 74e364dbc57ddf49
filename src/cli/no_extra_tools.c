/* The production binary has no test fixtures. */
#include "cli/cli.h"

void cli_register_extra_tools(void)
{
}
