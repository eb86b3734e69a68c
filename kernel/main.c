/* SPDX-License-Identifier: MIT */
/* The warpsim program: everything lives in libwarpsim (kernel/cli.c). */
#include <warpsim/warpsim.h>

int main(int argc, char **argv)
{
	return ws_cli_main(argc, argv);
}
