/* SPDX-License-Identifier: MIT */
/*
 * The warpsim program (tools/): the commands, written against libwarpsim's
 * public API only.
 */
#ifndef WS_TOOLS_H
#define WS_TOOLS_H

/* The command line; returns the exit status. */
int ws_cli_main(int argc, char **argv);

#endif
