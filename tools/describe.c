/* SPDX-License-Identifier: MIT */
/*
 * `warpsim plugins` and `warpsim describe`: the plugins the loader finds,
 * and the parameter table of a plugin or of a kernel section, as a table or
 * as ini text.  Read through the library's plugin catalog.
 */
#include <stdio.h>
#include <string.h>

#include "tools.h"

static void warn_line(void *ctx, const char *msg)
{
	fprintf((FILE *)ctx, "warpsim: %s\n", msg);
}

int tool_list_plugins(FILE *out, const struct ws_opts *opts, struct ws_err *err)
{
	struct ws_opts o = { WS_INIT_SIZE(struct ws_opts), .on_warning = warn_line,
			     .ctx = stderr };
	if (opts)
		o.plugin_path = opts->plugin_path;
	struct ws_catalog *c;
	int rc = ws_catalog_open(&c, &o, err);
	if (rc)
		return rc;
	uint32_t kind = 0;
	for (size_t i = 0; i < ws_catalog_count(c); i++) {
		const struct ws_plugin_info *p = ws_catalog_get(c, i);
		if (p->kind != kind) {
			kind = p->kind;
			fprintf(out, "%s%s:\n", i ? "\n" : "", ws_kind_name(kind));
		}
		fprintf(out, "  %-14s %-7s %s\n", p->name, p->version, p->summary);
		fprintf(out, "  %-14s         [%s]\n", "", p->path);
	}
	fprintf(out, "\nsearch path:");
	for (size_t r = 0; ws_catalog_root(c, r); r++)
		fprintf(out, " %s", ws_catalog_root(c, r));
	fprintf(out, "\n");
	ws_catalog_free(c);
	return WS_OK;
}

/* "a|b|c" for enums, "min .. max" for bounded values, "-" otherwise. */
static void param_range(char *buf, size_t n, const struct ws_param *p)
{
	if (p->type == WS_PT_ENUM) {
		size_t w = 0;
		buf[0] = '\0';
		for (int i = 0; p->choices[i] && w < n; i++)
			w += (size_t)snprintf(buf + w, n - w, "%s%s", i ? "|" : "",
					      p->choices[i]);
	} else if (p->min || p->max) {
		snprintf(buf, n, "%s .. %s", p->min ? p->min : "", p->max ? p->max : "");
	} else {
		snprintf(buf, n, "-");
	}
}

static void print_params(FILE *out, const struct ws_param *params)
{
	if (!params || !params->key) {
		fprintf(out, "  (no parameters)\n");
		return;
	}
	fprintf(out, "  %-20s %-7s %-12s %-24s %s\n", "key", "type", "default",
		"range", "meaning");
	for (const struct ws_param *p = params; p->key; p++) {
		char range[96];
		param_range(range, sizeof range, p);
		const char *def = p->def ? (p->def[0] ? p->def : "\"\"") : "(required)";
		fprintf(out, "  %-20s %-7s %-12s %-24s %s\n", p->key,
			ws_ptype_name(p->type), def, range, p->doc);
	}
}

static void print_ini(FILE *out, const char *section, const char *plugin,
		      const struct ws_param *params)
{
	fprintf(out, "[%s]\n", section);
	if (plugin)
		fprintf(out, "name = %s\n", plugin);
	for (const struct ws_param *p = params; p && p->key; p++) {
		fprintf(out, "; %s (%s", p->doc, ws_ptype_name(p->type));
		if (p->type == WS_PT_ENUM) {
			for (int i = 0; p->choices[i]; i++)
				fprintf(out, "%s%s", i ? "|" : ": ", p->choices[i]);
		} else if (p->min || p->max) {
			fprintf(out, ", %s..%s", p->min ? p->min : "", p->max ? p->max : "");
		}
		fprintf(out, ")\n");
		if (!p->def)
			fprintf(out, "; %s = (required: no default)\n", p->key);
		else
			fprintf(out, "%s = %s\n", p->key, p->def);
	}
}

/* The kernel section NAME, if it is one; false otherwise. */
static bool describe_section(FILE *out, const char *name, bool ini)
{
	const struct ws_section_info *k;
	for (size_t i = 0; (k = ws_kernel_section(i)); i++) {
		if (strcmp(name, k->name) != 0)
			continue;
		if (ini) {
			print_ini(out, name, NULL, k->params);
		} else {
			fprintf(out, "[%s] (kernel section): %s\n\n", name, k->doc);
			print_params(out, k->params);
		}
		return true;
	}
	return false;
}

static void describe_plugin(FILE *out, const struct ws_plugin_info *p,
			    bool ini, bool first)
{
	if (ini) {
		fprintf(out, "%s; %s %s: %s\n", first ? "" : "\n", p->name, p->version,
			p->summary);
		print_ini(out, ws_kind_name(p->kind), p->name, p->params);
		return;
	}
	fprintf(out, "%s%s plugin '%s' %s: %s\n  [%s]\n\n", first ? "" : "\n",
		ws_kind_name(p->kind), p->name, p->version, p->summary, p->path);
	print_params(out, p->params);
	if (p->kind == WS_KIND_CC) {
		const uint32_t from_switches = WS_CC_NEEDS_ECN | WS_CC_NEEDS_INT;
		fprintf(out, "\n  needs:%s%s%s\n",
			p->cc_needs & WS_CC_NEEDS_ECN ? " ECN" : "",
			p->cc_needs & WS_CC_NEEDS_INT ? " INT" : "",
			p->cc_needs & from_switches ? "" : " nothing from switches");
		if (p->cc_needs & WS_CC_IDLE_LINE_RATE)
			fprintf(out, "  keeps the line rate on an idle path\n");
	}
	if (p->kind == WS_KIND_TOPO && p->default_routing)
		fprintf(out, "\n  default routing: %s\n", p->default_routing);
}

/* "sim, nic, switch, output" */
static void section_list(char *buf, size_t n)
{
	const struct ws_section_info *k;
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; (k = ws_kernel_section(i)) && w < n; i++)
		w += (size_t)snprintf(buf + w, n - w, "%s%s", i ? ", " : "", k->name);
}

int tool_describe(FILE *out, const char *name, enum ws_kind kind, bool ini,
		  const struct ws_opts *opts, struct ws_err *err)
{
	if (!kind && describe_section(out, name, ini))
		return WS_OK;
	struct ws_catalog *c;
	int rc = ws_catalog_find(&c, name, kind, opts, err);
	if (rc)
		return rc;
	size_t n = ws_catalog_count(c);
	for (size_t i = 0; i < n; i++)
		describe_plugin(out, ws_catalog_get(c, i), ini, i == 0);
	ws_catalog_free(c);
	if (n)
		return WS_OK;
	if (kind)
		return ws_err_set(err, WS_ENOENT,
				  "no %s plugin named '%s' ('warpsim plugins' lists "
				  "them; without --kind every kind is searched)",
				  ws_kind_name(kind), name);
	char sections[128];
	section_list(sections, sizeof sections);
	return ws_err_set(err, WS_ENOENT,
			  "no plugin or kernel section named '%s' ('warpsim plugins' "
			  "lists the plugins; kernel sections: %s)", name, sections);
}
