/* SPDX-License-Identifier: MIT */
/*
 * JSON in the tools: reading a run's summary.json (and any JSON the
 * commands read back) through jansson.  Part of the program (tools/), not
 * of libwarpsim: the library writes its JSON with its own streaming writer
 * (ws_json_*, docs/plugins.md says why) and does not link jansson.
 */
#ifndef WS_TOOLS_JSONIN_H
#define WS_TOOLS_JSONIN_H

#include <stdint.h>

#include <jansson.h>
#include <warpsim/warpsim.h>

/*
 * The JSON object in the file `path` (at most 64 MiB) into *root (the
 * caller json_decref()s it).  A syntax error names the line and column
 * jansson reports and what it expected; a file that is empty, not an
 * object, or not JSON at all says so.  Integers beyond 2^63 - 1 (a seed
 * can be one) are read, as doubles (jansson's integers are signed 64-bit).
 * WS_ENOENT when the file does not exist.
 */
int tool_json_load(const char *path, json_t **root, struct ws_err *err);

/* root.section.key (NULL when either is absent or section is not an
 * object); a section may be a dotted path: "plugins.routing.params". */
json_t *tool_json_get(json_t *root, const char *section, const char *key);

/* A value that must be a non-negative number (a JSON number, or a string
 * holding one: "12"); `name` ("results.events") names it in errors, which
 * name `path` (line 0: jansson keeps no positions of values). */
int tool_json_u64(const char *path, const char *name, json_t *v, uint64_t *out,
		  struct ws_err *err);
int tool_json_num(const char *path, const char *name, json_t *v, double *out,
		  struct ws_err *err);

/* The string root.section.key of run directory dir's summary.json into
 * buf; "" when it is absent, not a string, or the file cannot be read (for
 * labels: a run's CC, its load balancing).  tool_summary_plugin (tools.h)
 * is the plugin name of one kind: plugins.<kind>.name. */
void tool_summary_string(const char *dir, const char *section, const char *key,
			 char *buf, size_t n);

#endif
