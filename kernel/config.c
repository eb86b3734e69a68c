/* SPDX-License-Identifier: MIT */
/*
 * Configuration: ini files read with inih, kept as (section, key, value,
 * file, line) entries so every later error can name where a value came
 * from; `--set section.key=value` overrides; and the application of a
 * parameter table to one section.
 *
 * inih gives handlers no line numbers, so the file is fed to
 * ini_parse_stream() through a reader that counts lines.  That reader also
 * rejects what inih would otherwise misread: over-long lines (inih splits
 * them) and NUL bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "internal.h"

#define CFG_MAX_BYTES (16u << 20)

struct reader {
	const char *buf;
	size_t len, pos;
	int line;              /* number of the line last handed to inih */
	const char *line_start;
	size_t line_len;
	struct ws_cfg *cfg;
	const char *name;      /* file name for messages */
	struct ws_err err;     /* first error found by us */
	bool failed;
};

/* Remember every [section] header and its line: inih reports none without
 * keys, and an empty unknown section is still a mistake to report. */
static void note_section(struct reader *r, const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= n || s[i] != '[')
		return;
	if (i > 0 && !r->failed) {
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "indented line: sections and keys must start at the "
			  "beginning of a line");
		r->failed = true;
	}
	const char *close = memchr(s + i, ']', n - i);
	if (!close)
		return;
	size_t len = (size_t)(close - s - i - 1);
	char name[128];
	if (len >= sizeof name)
		len = sizeof name - 1;
	memcpy(name, s + i + 1, len);
	name[len] = '\0';
	struct ws_cfg *cfg = r->cfg;
	cfg->sections = ws_xrealloc(cfg->sections, cfg->n_sections + 1,
				    sizeof *cfg->sections);
	cfg->sections[cfg->n_sections].name = ws_xstrdup(name);
	cfg->sections[cfg->n_sections].file = ws_xstrdup(r->name);
	cfg->sections[cfg->n_sections].line = r->line;
	cfg->n_sections++;
}

static char *reader_next(char *str, int num, void *stream)
{
	struct reader *r = stream;
	if (r->pos >= r->len)
		return NULL;
	const char *s = r->buf + r->pos;
	/* lines end with LF, CRLF or a lone CR (old Mac editors) */
	size_t n = 0, left = r->len - r->pos;
	while (n < left && s[n] != '\n' && s[n] != '\r')
		n++;
	size_t end = n;
	if (end < left && s[end] == '\r')
		end++;
	if (end < left && s[end] == '\n' && (end == n || s[n] == '\r'))
		end++;
	r->pos += end;
	r->line++;
	r->line_start = s;
	r->line_len = n;
	if (memchr(s, '\0', n)) {
		if (!r->failed) {
			ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
				  "binary data (a NUL byte) in a configuration file");
			r->failed = true;
		}
		snprintf(str, (size_t)num, ";\n");
		return str;
	}
	if (n + 2 > (size_t)num) {
		if (!r->failed) {
			ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
				  "line too long (%zu characters; at most %d)", n,
				  num - 2);
			r->failed = true;
		}
		snprintf(str, (size_t)num, ";\n");
		return str;
	}
	memcpy(str, s, n);
	str[n] = '\n';
	str[n + 1] = '\0';
	note_section(r, s, n);
	return str;
}

static bool valid_name(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-' &&
		    *s != '.')
			return false;
	return true;
}

struct ws_cfg_entry *ws_cfg_find(const struct ws_cfg *cfg, const char *section,
				 const char *key)
{
	for (size_t i = 0; i < cfg->n; i++)
		if (strcmp(cfg->e[i].section, section) == 0 &&
		    strcmp(cfg->e[i].key, key) == 0)
			return &cfg->e[i];
	return NULL;
}

static struct ws_cfg_entry *cfg_add(struct ws_cfg *cfg, const char *section,
				    const char *key, const char *value,
				    const char *file, int line)
{
	if (cfg->n == cfg->cap) {
		cfg->cap = cfg->cap ? cfg->cap * 2 : 32;
		cfg->e = ws_xrealloc(cfg->e, cfg->cap, sizeof *cfg->e);
	}
	struct ws_cfg_entry *e = &cfg->e[cfg->n++];
	e->section = ws_xstrdup(section);
	e->key = ws_xstrdup(key);
	e->value = ws_xstrdup(value);
	e->file = ws_xstrdup(file);
	e->line = line;
	return e;
}

/* Cut an inline "# comment" (inih only knows ';' inline). */
static void cut_hash_comment(char *v)
{
	for (char *p = v; *p; p++) {
		if (*p == '#' && (p == v || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			break;
		}
	}
	size_t n = strlen(v);
	while (n && isspace((unsigned char)v[n - 1]))
		v[--n] = '\0';
}

static int on_entry(void *user, const char *section, const char *name,
		    const char *value)
{
	struct reader *r = user;
	if (r->failed)
		return 1; /* keep our first error; let inih finish quietly */
	if (r->line_len > 0 && isspace((unsigned char)r->line_start[0])) {
		/* after a key, inih reads an indented line as the continuation of
		 * that key's value: never what was meant */
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "indented line: keys must start at the beginning of a line "
			  "(an indented line would continue the value of the key above)");
		r->failed = true;
		return 0;
	}
	if (!section[0]) {
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "key '%s' is outside any section (expected a [section] "
			  "line first)",
			  name);
		r->failed = true;
		return 0;
	}
	if (!valid_name(section)) {
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "invalid section name [%s]", section);
		r->failed = true;
		return 0;
	}
	if (!valid_name(name)) {
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "invalid key name '%s' in [%s] (letters, digits, _ - .)",
			  name, section);
		r->failed = true;
		return 0;
	}
	struct ws_cfg_entry *dup = ws_cfg_find(r->cfg, section, name);
	if (dup) {
		ws_err_at(&r->err, WS_EINVAL, r->name, r->line,
			  "duplicate key '%s' in [%s] (first set on line %d)",
			  name, section, dup->line);
		r->failed = true;
		return 0;
	}
	char *v = ws_xstrdup(value);
	cut_hash_comment(v);
	cfg_add(r->cfg, section, name, v, r->name, r->line);
	free(v);
	return 1;
}

static void line_text(const char *buf, size_t len, int line, char *out,
		      size_t size)
{
	const char *s = buf, *end = buf + len;
	for (int i = 1; i < line && s < end; i++) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		s = nl ? nl + 1 : end;
	}
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n > 60) {
		snprintf(out, size, "%.57s...", s);
		return;
	}
	snprintf(out, size, "%.*s", (int)n, s);
}

static int cfg_parse(struct ws_cfg **out, const char *buf, size_t len,
		     const char *name, const char *dir, struct ws_err *err)
{
	struct ws_cfg *cfg = ws_xcalloc(1, sizeof *cfg);
	cfg->path = ws_xstrdup(name);
	cfg->dir = ws_xstrdup(dir ? dir : ".");
	struct reader r = { .buf = buf, .len = len, .cfg = cfg, .name = name };
	int rc = ini_parse_stream(reader_next, &r, on_entry, &r);
	if (rc < 0) {
		ws_cfg_free(cfg);
		return ws_err_at(err, WS_ENOMEM, name, 0, "cannot parse: out of memory");
	}
	/* report whichever error comes first in the file */
	if (rc > 0 && (!r.failed || rc < r.err.line)) {
		char text[80];
		line_text(buf, len, rc, text, sizeof text);
		const char *t = text;
		while (isspace((unsigned char)*t))
			t++;
		if (*t == '[')
			ws_err_at(err, WS_EINVAL, name, rc,
				  "malformed section header '%s' (expected [name])",
				  t);
		else
			ws_err_at(err, WS_EINVAL, name, rc,
				  "malformed line '%s' (expected 'key = value', "
				  "'[section]' or a comment starting with ; or #)",
				  t);
		ws_cfg_free(cfg);
		return WS_EINVAL;
	}
	if (r.failed) {
		if (err)
			*err = r.err;
		ws_cfg_free(cfg);
		return WS_EINVAL;
	}
	*out = cfg;
	return WS_OK;
}

int ws_cfg_parse_string(struct ws_cfg **out, const char *text,
			const char *name, const char *dir, struct ws_err *err)
{
	return cfg_parse(out, text, strlen(text), name ? name : "<string>", dir,
			 err);
}

int ws_cfg_load(struct ws_cfg **out, const char *path, struct ws_err *err)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return ws_err_at(err, errno == ENOENT ? WS_ENOENT : WS_EIO, path,
				 0, "cannot open configuration: %s",
				 strerror(errno));
	char *buf = ws_xcalloc(1, CFG_MAX_BYTES + 1);
	errno = 0;
	size_t len = fread(buf, 1, CFG_MAX_BYTES + 1, f);
	int rerr = ferror(f) ? (errno ? errno : EIO) : 0;
	fclose(f);
	if (rerr) {
		free(buf);
		return ws_err_at(err, WS_EIO, path, 0, "cannot read configuration: %s",
				 strerror(rerr));
	}
	if (len > CFG_MAX_BYTES) {
		free(buf);
		return ws_err_at(err, WS_EINVAL, path, 0,
				 "configuration larger than %u bytes",
				 CFG_MAX_BYTES);
	}
	char *dir = ws_xstrdup(path);
	char *slash = strrchr(dir, '/');
	if (slash)
		*(slash == dir ? slash + 1 : slash) = '\0';
	else
		strcpy(dir, ".");
	int rc = cfg_parse(out, buf, len, path, dir, err);
	free(dir);
	free(buf);
	return rc;
}

int ws_cfg_set(struct ws_cfg *cfg, const char *assignment, struct ws_err *err)
{
	const char *eq = strchr(assignment, '=');
	const char *dot = strchr(assignment, '.');
	if (!eq || !dot || dot > eq || dot == assignment || dot + 1 == eq)
		return ws_err_set(err, WS_EINVAL,
				  "--set %s: expected section.key=value "
				  "(e.g. --set cc.rate_ai=40Mbps)",
				  assignment);
	char section[128], key[128];
	size_t sl = (size_t)(dot - assignment), kl = (size_t)(eq - dot - 1);
	if (sl >= sizeof section || kl >= sizeof key)
		return ws_err_set(err, WS_EINVAL, "--set %s: name too long",
				  assignment);
	memcpy(section, assignment, sl);
	section[sl] = '\0';
	memcpy(key, dot + 1, kl);
	key[kl] = '\0';
	/* trim around the names and the value */
	char *s = section, *k = key;
	while (isspace((unsigned char)*s))
		s++;
	while (isspace((unsigned char)*k))
		k++;
	for (size_t n = strlen(s); n && isspace((unsigned char)s[n - 1]);)
		s[--n] = '\0';
	for (size_t n = strlen(k); n && isspace((unsigned char)k[n - 1]);)
		k[--n] = '\0';
	if (!valid_name(s) || !valid_name(k))
		return ws_err_set(err, WS_EINVAL,
				  "--set %s: section and key are letters, digits, _ - .",
				  assignment);
	const char *vs = eq + 1;
	while (isspace((unsigned char)*vs))
		vs++;
	char *v = ws_xstrdup(vs);
	for (size_t n = strlen(v); n && isspace((unsigned char)v[n - 1]);)
		v[--n] = '\0';
	char where[160];
	snprintf(where, sizeof where, "--set %s.%s", s, k);
	struct ws_cfg_entry *e = ws_cfg_find(cfg, s, k);
	if (e) {
		free(e->value);
		free(e->file);
		e->value = ws_xstrdup(v);
		e->file = ws_xstrdup(where);
		e->line = 0;
	} else {
		cfg_add(cfg, s, k, v, where, 0);
	}
	free(v);
	return WS_OK;
}

const char *ws_cfg_path(const struct ws_cfg *cfg)
{
	return cfg->path;
}

void ws_cfg_free(struct ws_cfg *cfg)
{
	if (!cfg)
		return;
	for (size_t i = 0; i < cfg->n; i++) {
		free(cfg->e[i].section);
		free(cfg->e[i].key);
		free(cfg->e[i].value);
		free(cfg->e[i].file);
	}
	free(cfg->e);
	for (size_t i = 0; i < cfg->n_sections; i++) {
		free(cfg->sections[i].name);
		free(cfg->sections[i].file);
	}
	free(cfg->sections);
	free(cfg->path);
	free(cfg->dir);
	free(cfg);
}

/* Copy a string value into the arena, without one pair of enclosing quotes. */
static const char *arena_unquote(struct ws_arena *a, const char *v)
{
	size_t n = strlen(v);
	if (n >= 2 && ((v[0] == '"' && v[n - 1] == '"') ||
		       (v[0] == '\'' && v[n - 1] == '\''))) {
		char *d = ws_arena_alloc(a, n - 1);
		memcpy(d, v + 1, n - 2);
		d[n - 2] = '\0';
		return d;
	}
	return ws_arena_strdup(a, v);
}

/* "section.key" of an entry, for errors */
static const char *key_of(const char *section, const struct ws_cfg_entry *e,
			  char *buf, size_t n)
{
	snprintf(buf, n, "%s.%s", section, e->key);
	return buf;
}

int ws_apply_params(struct ws_sim *sim, const struct ws_cfg *cfg,
		    const char *section, const struct ws_param *params,
		    void *conf, const char *owner_desc, const char *skip_key,
		    struct ws_err *err)
{
	char key[192];
	int rc = ws_param_defaults(params, conf, err);
	if (rc)
		return rc;
	size_t n_params = 0;
	for (const struct ws_param *p = params; p && p->key; p++)
		n_params++;
	bool *seen = ws_xcalloc(n_params + 1, sizeof *seen);
	for (size_t i = 0; i < cfg->n; i++) {
		const struct ws_cfg_entry *e = &cfg->e[i];
		if (strcmp(e->section, section) != 0)
			continue;
		if (skip_key && strcmp(e->key, skip_key) == 0)
			continue;
		const struct ws_param *p = NULL;
		size_t idx = 0;
		for (const struct ws_param *q = params; q && q->key; q++, idx++) {
			if (strcmp(q->key, e->key) == 0) {
				p = q;
				break;
			}
		}
		if (!p) {
			const char *near = ws_param_nearest(params, e->key);
			char hint[192];
			if (near)
				snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
			else
				hint[0] = '\0';
			ws_err_key(err, WS_EINVAL, key_of(section, e, key, sizeof key),
				   "unknown key '%s' in [%s] for %s%s "
				   "('warpsim describe' lists the keys)",
				   e->key, section, owner_desc, hint);
			ws_err_locate(err, e->file, e->line);
			free(seen);
			return WS_EINVAL;
		}
		seen[idx] = true;
		char why[512];
		void *dst = (char *)conf + p->offset;
		if (ws_param_parse(p, e->value, dst, why, sizeof why)) {
			ws_err_key(err, WS_EINVAL, key_of(section, e, key, sizeof key),
				   "[%s] %s = %s: %s", section, e->key, e->value, why);
			ws_err_locate(err, e->file, e->line);
			free(seen);
			return WS_EINVAL;
		}
		if (p->type == WS_PT_STRING)
			*(const char **)dst = arena_unquote(&sim->arena, e->value);
	}
	size_t idx = 0;
	for (const struct ws_param *p = params; p && p->key; p++, idx++) {
		if (!p->def && !seen[idx]) {
			ws_err_at(err, WS_EINVAL, cfg->path, 0,
				  "[%s] is missing the required key '%s' for %s (%s)",
				  section, p->key, owner_desc, p->doc);
			free(seen);
			return WS_EINVAL;
		}
	}
	free(seen);
	return WS_OK;
}
