/* SPDX-License-Identifier: MIT */
/* The warpsim program: the commands are in tools/cli.c. */
#include "tools.h"

int main(int argc, char **argv)
{
	return ws_cli_main(argc, argv);
}
