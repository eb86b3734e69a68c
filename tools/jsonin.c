/* SPDX-License-Identifier: MIT */
/*
 * JSON in the tools (jsonin.h), through jansson: strict RFC 8259 (no
 * trailing comma, no NaN, no raw line end in a string, no duplicate key),
 * and its error positions and messages ("']' expected near '}'") passed on
 * with the file's name.  jansson keeps no position of a value once parsed,
 * so an error about a value (a word where a number belongs) names the
 * value by its place in the document instead of by line.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonin.h"
#include "tools.h"

/* a summary.json is a few KiB; anything far larger is not one */
#define JSON_MAX_BYTES (64u << 20)

/* The whole file in *buf (its size in *n). */
static int json_text(const char *path, char **buf, size_t *n, struct ws_err *err)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EINVAL, path, 0,
				 "cannot open: %s", strerror(errno));
	size_t cap = 16384;
	int rc = WS_OK;
	*n = 0;
	*buf = tool_xcalloc(cap, 1);
	for (;;) {
		if (*n == cap) {
			if (cap >= JSON_MAX_BYTES) {
				rc = ws_err_at(err, WS_EINVAL, path, 0, "larger than %u "
					       "MiB: not a summary.json of warpsim run",
					       JSON_MAX_BYTES >> 20);
				break;
			}
			cap *= 2;
			*buf = tool_xrealloc(*buf, cap, 1);
		}
		size_t got = fread(*buf + *n, 1, cap - *n, f);
		*n += got;
		if (got == 0) {
			if (ferror(f))
				rc = ws_err_at(err, WS_EINVAL, path, 0, "cannot read: %s",
					       strerror(errno ? errno : EIO));
			break;
		}
	}
	fclose(f);
	return rc;
}

/* jansson's error as ours: the line, the column and what it expected. */
static int json_syntax(const char *path, const json_error_t *e, struct ws_err *err)
{
	const char *hint = "";
	switch (json_error_code(e)) {
	case json_error_premature_end_of_input:
		hint = " (a truncated file?)";
		break;
	case json_error_end_of_input_expected:
		hint = " (text after the JSON object)";
		break;
	case json_error_invalid_utf8:
	case json_error_null_character:
		hint = " (not a text file?)";
		break;
	default:
		break;
	}
	char col[32] = "";
	if (e->line > 0 && e->column > 0)
		snprintf(col, sizeof col, "column %d: ", e->column);
	return ws_err_at(err, WS_EINVAL, path, e->line > 0 ? e->line : 0, "%s%s%s", col,
			 e->text, hint);
}

int tool_json_load(const char *path, json_t **root, struct ws_err *err)
{
	char *buf = NULL;
	size_t n = 0;
	*root = NULL;
	int rc = json_text(path, &buf, &n, err);
	if (!rc && strspn(buf, " \t\r\n") >= n)
		rc = ws_err_at(err, WS_EINVAL, path, 0, "empty file (expected a JSON object)");
	json_error_t e;
	if (!rc) {
		*root = json_loadb(buf, n, JSON_REJECT_DUPLICATES, &e);
		/* an integer beyond jansson's int64: all integers as doubles */
		if (!*root && json_error_code(&e) == json_error_numeric_overflow)
			*root = json_loadb(buf, n, JSON_REJECT_DUPLICATES |
					   JSON_DECODE_INT_AS_REAL, &e);
		if (!*root)
			rc = json_syntax(path, &e, err);
	}
	if (!rc && !json_is_object(*root))
		rc = ws_err_at(err, WS_EINVAL, path, 0, "expected a JSON object, found "
			       "an array");
	if (rc) {
		json_decref(*root);
		*root = NULL;
	}
	free(buf);
	return rc;
}

json_t *tool_json_get(json_t *root, const char *section, const char *key)
{
	json_t *at = root;
	char name[128];
	for (const char *s = section; at && *s;) {
		size_t l = strcspn(s, ".");
		snprintf(name, sizeof name, "%.*s", (int)(l < sizeof name ? l : sizeof name - 1), s);
		at = json_is_object(at) ? json_object_get(at, name) : NULL;
		s += l + (s[l] == '.');
	}
	return json_is_object(at) ? json_object_get(at, key) : NULL;
}

/* The value's text for a message. */
static const char *json_shown(json_t *v, char *buf, size_t n)
{
	if (json_is_string(v))
		snprintf(buf, n, "%.40s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, n, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, n, "%.17g", json_real_value(v));
	else
		snprintf(buf, n, "%s", json_is_null(v) ? "null" : json_is_true(v) ? "true"
				       : json_is_false(v) ? "false" : "an object or array");
	return buf;
}

int tool_json_u64(const char *path, const char *name, json_t *v, uint64_t *out,
		  struct ws_err *err)
{
	char shown[64];
	if (!v)
		return ws_err_at(err, WS_EINVAL, path, 0, "%s: missing (expected a number)",
				 name);
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return WS_OK;
	}
	/* from a file with integers beyond 2^63: exact below 2^53 */
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 0x1p53 &&
	    json_real_value(v) == floor(json_real_value(v))) {
		*out = (uint64_t)json_real_value(v);
		return WS_OK;
	}
	if (json_is_string(v) && ws_text_u64(json_string_value(v), out))
		return WS_OK;
	if (!json_is_number(v) && !json_is_string(v))
		return ws_err_at(err, WS_EINVAL, path, 0, "%s: expected a number, found %s",
				 name, json_shown(v, shown, sizeof shown));
	return ws_err_at(err, WS_EINVAL, path, 0, "%s = %s: expected a non-negative "
			 "integer", name, json_shown(v, shown, sizeof shown));
}

int tool_json_num(const char *path, const char *name, json_t *v, double *out,
		  struct ws_err *err)
{
	char shown[64];
	if (!v)
		return ws_err_at(err, WS_EINVAL, path, 0, "%s: missing (expected a number)",
				 name);
	if (json_is_number(v))
		*out = json_number_value(v);
	else if (json_is_string(v)) {
		const char *s = json_string_value(v);
		char *end;
		*out = strtod(s, &end);
		if (end == s || *end)
			*out = -1;
	} else {
		return ws_err_at(err, WS_EINVAL, path, 0, "%s: expected a number, found %s",
				 name, json_shown(v, shown, sizeof shown));
	}
	if (!isfinite(*out) || *out < 0)
		return ws_err_at(err, WS_EINVAL, path, 0, "%s = %s: expected a non-negative "
				 "number", name, json_shown(v, shown, sizeof shown));
	return WS_OK;
}

void tool_summary_string(const char *dir, const char *section, const char *key,
			 char *buf, size_t n)
{
	char path[4200];
	json_t *root;
	struct ws_err err;
	snprintf(path, sizeof path, "%s/summary.json", dir);
	buf[0] = '\0';
	if (tool_json_load(path, &root, &err))
		return;
	json_t *v = tool_json_get(root, section, key);
	if (json_is_string(v))
		snprintf(buf, n, "%s", json_string_value(v));
	json_decref(root);
}

void tool_summary_plugin(const char *dir, const char *kind, char *name, size_t n)
{
	char section[64];
	snprintf(section, sizeof section, "plugins.%s", kind);
	tool_summary_string(dir, section, "name", name, n);
}
