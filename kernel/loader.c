/* SPDX-License-Identifier: MIT */
/*
 * Plugin loader.  A plugin NAME of kind K lives in a file named NAME.so,
 * found in the first search root R that has one of:
 *     R/<dir of K>/NAME.so        installed layout and plugin trees
 *     R/NAME.so                   a directory holding plugins directly
 *     R/<dir of K>/.libs/NAME.so  a build tree (libtool's output)
 * where the dir of a kind is its folder in the source tree, and so in the
 * build and installed trees: topo/, routing/, cc/, plugins/accel/,
 * plugins/workload/.
 *
 * Roots, in order: --plugin-path, WARPSIM_PLUGIN_PATH (both colon-separated),
 * the build tree when the running program lives in it, the installed
 * plugin directory.  Files are opened with dlopen(RTLD_NOW | RTLD_LOCAL)
 * and checked before anything in them is called.  RTLD_NODELETE keeps a
 * file mapped once loaded: the next simulation in the process (a sweep's,
 * a test's) finds it in the dynamic linker's list instead of mapping and
 * relocating it again, which was most of the system time of a test suite
 * that builds thousands of small simulations.  Plugins hold no mutable
 * globals, so a mapped copy is as good as a fresh one.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#ifndef WS_BUILD_DIR
#define WS_BUILD_DIR ""
#endif
#ifndef WS_PLUGIN_DIR
#define WS_PLUGIN_DIR "/usr/local/lib/warpsim"
#endif

/* A kind's name, which is also the ini section of its plugin. */
static const char *const kind_names[] = {
	[WS_KIND_TOPO] = "topology", [WS_KIND_ROUTING] = "routing",
	[WS_KIND_CC] = "cc",         [WS_KIND_ACCEL] = "accel",
	[WS_KIND_WORKLOAD] = "workload",
};

const char *ws_kind_name(enum ws_kind kind)
{
	if (kind >= WS_KIND_TOPO && kind <= WS_KIND_WORKLOAD)
		return kind_names[kind];
	return "?";
}

const char *ws_kind_dir(enum ws_kind kind)
{
	switch (kind) {
	case WS_KIND_TOPO: return "topo";
	case WS_KIND_ROUTING: return "routing";
	case WS_KIND_CC: return "cc";
	case WS_KIND_ACCEL: return "plugins/accel";
	case WS_KIND_WORKLOAD: return "plugins/workload";
	}
	return "?";
}

static const struct ws_plugin *const builtins[] = { &ws_builtin_accel_none };

static void add_root(struct ws_search *s, const char *dir)
{
	if (!dir || !*dir)
		return;
	for (size_t i = 0; i < s->n_roots; i++)
		if (strcmp(s->roots[i], dir) == 0)
			return;
	s->roots = ws_xrealloc(s->roots, s->n_roots + 1, sizeof *s->roots);
	s->roots[s->n_roots++] = ws_xstrdup(dir);
}

static void add_path_list(struct ws_search *s, const char *list)
{
	if (!list)
		return;
	char *copy = ws_xstrdup(list);
	char *save = NULL;
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save))
		add_root(s, t);
	free(copy);
}

/* Is the running executable inside the build tree? */
static bool running_from_build_tree(void)
{
	if (!WS_BUILD_DIR[0])
		return false;
	char exe[PATH_MAX], build[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	if (!realpath(WS_BUILD_DIR, build))
		return false;
	size_t bl = strlen(build);
	return strncmp(exe, build, bl) == 0 && exe[bl] == '/';
}

int ws_search_init(struct ws_search *s, const char *plugin_path,
		   struct ws_err *err)
{
	memset(s, 0, sizeof *s);
	/* a directory named that is something else is a mistake, not a root
	 * to skip in silence (one that does not exist yet may be made later) */
	char *copy = plugin_path ? ws_xstrdup(plugin_path) : NULL, *save = NULL;
	for (char *t = copy ? strtok_r(copy, ":", &save) : NULL; t;
	     t = strtok_r(NULL, ":", &save)) {
		struct stat st;
		if (stat(t, &st) == 0 && !S_ISDIR(st.st_mode)) {
			int rc = ws_err_set(err, WS_EINVAL, "plugin-path: %s is not a "
					    "directory (expected directories of plugins, "
					    "separated by ':')", t);
			free(copy);
			return rc;
		}
	}
	free(copy);
	add_path_list(s, plugin_path);
	add_path_list(s, getenv("WARPSIM_PLUGIN_PATH"));
	if (running_from_build_tree())
		add_root(s, WS_BUILD_DIR);
	add_root(s, WS_PLUGIN_DIR);
	return WS_OK;
}

void ws_search_fini(struct ws_search *s)
{
	for (size_t i = 0; i < s->n_roots; i++)
		free(s->roots[i]);
	free(s->roots);
	memset(s, 0, sizeof *s);
}

static bool file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The candidate files for (kind, name) under one root. */
static size_t candidates(const struct ws_search *s, const char *root,
			 enum ws_kind kind, const char *name, char out[3][1024])
{
	size_t n = 0;
	snprintf(out[n++], 1024, "%s/%s/%s.so", root, ws_kind_dir(kind), name);
	snprintf(out[n++], 1024, "%s/%s.so", root, name);
	snprintf(out[n++], 1024, "%s/%s/.libs/%s.so", root, ws_kind_dir(kind), name);
	(void)s;
	return n;
}

static size_t ops_min_size(enum ws_kind kind)
{
	switch (kind) {
	case WS_KIND_TOPO: return offsetof(struct ws_topo_ops, build) + sizeof(void *);
	case WS_KIND_ROUTING: return offsetof(struct ws_routing_ops, next_port) + sizeof(void *);
	case WS_KIND_CC: return offsetof(struct ws_cc_ops, init) + sizeof(void *);
	case WS_KIND_ACCEL: return sizeof(uint32_t);
	case WS_KIND_WORKLOAD: return offsetof(struct ws_workload_ops, start) + sizeof(void *);
	}
	return 0;
}

static size_t ops_max_size(enum ws_kind kind)
{
	switch (kind) {
	case WS_KIND_TOPO: return sizeof(struct ws_topo_ops);
	case WS_KIND_ROUTING: return sizeof(struct ws_routing_ops);
	case WS_KIND_CC: return sizeof(struct ws_cc_ops);
	case WS_KIND_ACCEL: return sizeof(struct ws_accel_ops);
	case WS_KIND_WORKLOAD: return sizeof(struct ws_workload_ops);
	}
	return 0;
}

static int check_params(const struct ws_plugin *d, const char *path,
			struct ws_err *err)
{
	if (!d->params)
		return WS_OK;
	if (d->conf_size == 0)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "plugin '%s' declares parameters but conf_size is 0",
				 d->name);
	void *conf = ws_xcalloc(1, d->conf_size);
	int rc = WS_OK;
	for (const struct ws_param *p = d->params; p->key; p++) {
		if (p->type < WS_PT_INT || p->type > WS_PT_ENUM) {
			rc = ws_err_at(err, WS_EPLUGIN, path, 0,
				       "parameter '%s' has an unknown type %u",
				       p->key, p->type);
			break;
		}
		if (strcmp(p->key, "name") == 0) {
			rc = ws_err_at(err, WS_EPLUGIN, path, 0,
				       "a parameter may not be called 'name' "
				       "(it selects the plugin)");
			break;
		}
		if (p->type == WS_PT_ENUM && (!p->choices || !p->choices[0])) {
			rc = ws_err_at(err, WS_EPLUGIN, path, 0,
				       "enum parameter '%s' has no choices", p->key);
			break;
		}
		size_t width = p->type == WS_PT_BOOL ? sizeof(bool)
			       : p->type == WS_PT_ENUM ? sizeof(int)
			       : p->type == WS_PT_STRING ? sizeof(char *)
			       : 8;
		if (p->offset + width > d->conf_size) {
			rc = ws_err_at(err, WS_EPLUGIN, path, 0,
				       "parameter '%s' lies outside the %u-byte config",
				       p->key, d->conf_size);
			break;
		}
		for (const struct ws_param *q = d->params; q < p; q++) {
			if (strcmp(q->key, p->key) == 0) {
				rc = ws_err_at(err, WS_EPLUGIN, path, 0,
					       "parameter '%s' is declared twice",
					       p->key);
				goto out;
			}
		}
		char why[256];
		const char *texts[3] = { p->def, p->min, p->max };
		const char *what[3] = { "default", "minimum", "maximum" };
		for (int i = 0; i < 3; i++) {
			if (!texts[i] || p->type == WS_PT_STRING)
				continue;
			struct ws_param unbounded = *p;
			unbounded.min = unbounded.max = NULL;
			const struct ws_param *use = i == 0 ? p : &unbounded;
			if (ws_param_parse(use, texts[i], (char *)conf + p->offset, why,
					   sizeof why)) {
				rc = ws_err_at(err, WS_EPLUGIN, path, 0,
					       "the %s of parameter '%s' (%s) is invalid: %s",
					       what[i], p->key, texts[i], why);
				goto out;
			}
		}
	}
out:
	free(conf);
	return rc;
}

/* The ABI the descriptor was built for, and the layout it has. */
static int check_abi(const struct ws_plugin *d, const char *path,
		     struct ws_err *err)
{
	if (d->abi_major != WS_ABI_MAJOR)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "built for plugin ABI %u.%u, but this warpsim has ABI %d.%d: "
				 "rebuild the plugin against this warpsim",
				 d->abi_major, d->abi_minor, WS_ABI_MAJOR, WS_ABI_MINOR);
	if (d->abi_minor > WS_ABI_MINOR)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "needs plugin ABI %u.%u, but this warpsim provides %d.%d: "
				 "upgrade warpsim",
				 d->abi_major, d->abi_minor, WS_ABI_MAJOR, WS_ABI_MINOR);
	if (d->desc_size < offsetof(struct ws_plugin, ops) + sizeof(void *))
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "descriptor is %u bytes, smaller than ABI %d.0's",
				 d->desc_size, WS_ABI_MAJOR);
	if (d->build_sig != WS_BUILD_SIG)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "build signature %#llx does not match warpsim's %#llx "
				 "(built with different type sizes or headers): rebuild it",
				 (unsigned long long)d->build_sig,
				 (unsigned long long)WS_BUILD_SIG);
	return WS_OK;
}

/* Its kind, name, version and summary. */
static int check_identity(const struct ws_plugin *d, enum ws_kind kind,
			  const char *name, const char *path, struct ws_err *err)
{
	if (d->kind < WS_KIND_TOPO || d->kind > WS_KIND_WORKLOAD)
		return ws_err_at(err, WS_EPLUGIN, path, 0, "unknown plugin kind %u",
				 d->kind);
	if (kind && d->kind != (uint32_t)kind)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "is a %s plugin, not a %s plugin",
				 ws_kind_name(d->kind), ws_kind_name(kind));
	if (!d->name || !d->name[0])
		return ws_err_at(err, WS_EPLUGIN, path, 0, "plugin has no name");
	if (name && strcmp(d->name, name) != 0)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "declares the name '%s'; the file must be named %s.so",
				 d->name, d->name);
	if (!d->version || !d->summary)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "plugin '%s' lacks a version or summary", d->name);
	return WS_OK;
}

/* The required callback a kind's ops table lacks, or NULL. */
static const char *missing_callback(uint32_t kind, const void *ops)
{
	switch (kind) {
	case WS_KIND_TOPO:
		return ((const struct ws_topo_ops *)ops)->build ? NULL : "build";
	case WS_KIND_ROUTING: {
		const struct ws_routing_ops *o = ops;
		return o->next_port || o->next_hop ? NULL : "next_port (or next_hop)";
	}
	case WS_KIND_CC:
		return ((const struct ws_cc_ops *)ops)->init ? NULL : "init";
	case WS_KIND_WORKLOAD:
		return ((const struct ws_workload_ops *)ops)->start ? NULL : "start";
	case WS_KIND_ACCEL: {
		/* sharing knowledge between runs takes all three ops, or none */
		const struct ws_accel_ops *o = ops;
		int n = !!o->share_key + !!o->share_import + !!o->share_export;
		return n == 0 || n == 3 ? NULL : "share_key, share_import and share_export "
						 "(all three or none)";
	}
	default:
		return NULL;
	}
}

/* The ops table: its size, and the required callbacks (read through the
 * kernel's zero-extended copy, as every later use is). */
static int check_ops(const struct ws_plugin *d, const char *path,
		     struct ws_err *err)
{
	if (!d->ops)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "plugin '%s' has no ops table", d->name);
	uint32_t ops_size = *(const uint32_t *)d->ops;
	if (ops_size != d->ops_size)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "ops table size %u differs from the descriptor's %u",
				 ops_size, d->ops_size);
	if (d->ops_size < ops_min_size(d->kind))
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "ops table of %u bytes is too small for a %s plugin",
				 d->ops_size, ws_kind_name(d->kind));
	if (d->ops_size > ops_max_size(d->kind))
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "ops table of %u bytes is larger than ABI %d.%d's %zu-byte "
				 "%s table",
				 d->ops_size, WS_ABI_MAJOR, WS_ABI_MINOR,
				 ops_max_size(d->kind), ws_kind_name(d->kind));
	uint8_t ops[256];
	ws_plugin_ops_copy(d, ops, sizeof ops);
	const char *missing = missing_callback(d->kind, ops);
	if (missing)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "%s plugin '%s' lacks the required callback %s",
				 ws_kind_name(d->kind), d->name, missing);
	return WS_OK;
}

int ws_plugin_check(const struct ws_plugin *d, enum ws_kind kind,
		    const char *name, const char *path, struct ws_err *err)
{
	if (!d)
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "ws_plugin_entry() returned NULL");
	int rc = check_abi(d, path, err);
	if (!rc)
		rc = check_identity(d, kind, name, path, err);
	if (!rc)
		rc = check_ops(d, path, err);
	if (!rc)
		rc = check_params(d, path, err);
	return rc;
}

static int open_file(const char *path, enum ws_kind kind, const char *name,
		     struct ws_loaded *out, struct ws_err *err)
{
	void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
	if (!dl)
		return ws_err_at(err, WS_EPLUGIN, path, 0, "cannot load: %s",
				 dlerror());
	const struct ws_plugin *(*entry)(void);
	*(void **)&entry = dlsym(dl, "ws_plugin_entry");
	if (!entry) {
		dlclose(dl);
		return ws_err_at(err, WS_EPLUGIN, path, 0,
				 "no symbol ws_plugin_entry: not a warpsim plugin");
	}
	const struct ws_plugin *d = entry();
	int rc = ws_plugin_check(d, kind, name, path, err);
	if (rc) {
		dlclose(dl);
		return rc;
	}
	out->dl = dl;
	out->desc = d;
	snprintf(out->path, sizeof out->path, "%s", path);
	return WS_OK;
}

/* Names of the plugins of one kind that can be found, for messages. */
static void available(const struct ws_search *s, enum ws_kind kind, char *buf,
		      size_t size)
{
	char names[64][64];
	size_t n = 0;
	for (size_t b = 0; b < WS_ARRAY_LEN(builtins); b++)
		if (builtins[b]->kind == (uint32_t)kind && n < 64)
			snprintf(names[n++], 64, "%s", builtins[b]->name);
	for (size_t r = 0; r < s->n_roots; r++) {
		char dirs[3][1024];
		snprintf(dirs[0], sizeof dirs[0], "%s/%s", s->roots[r], ws_kind_dir(kind));
		snprintf(dirs[1], sizeof dirs[1], "%s/%s/.libs", s->roots[r],
			 ws_kind_dir(kind));
		snprintf(dirs[2], sizeof dirs[2], "%s", s->roots[r]);
		for (int d = 0; d < 3; d++) {
			DIR *dir = opendir(dirs[d]);
			if (!dir)
				continue;
			struct dirent *de;
			while ((de = readdir(dir)) && n < 64) {
				size_t l = strlen(de->d_name);
				if (l < 4 || strcmp(de->d_name + l - 3, ".so") != 0 ||
				    l - 3 >= 64)
					continue;
				char nm[64];
				snprintf(nm, sizeof nm, "%.*s", (int)(l - 3), de->d_name);
				/* plugins/ holds two kinds: only list the right one */
				{
					char path[2200];
					if (snprintf(path, sizeof path, "%s/%s", dirs[d],
						     de->d_name) >= (int)sizeof path)
						continue;
					struct ws_loaded tmp;
					if (open_file(path, kind, NULL, &tmp, NULL))
						continue;
					ws_plugin_unload(&tmp);
				}
				bool dup = false;
				for (size_t i = 0; i < n; i++)
					dup |= strcmp(names[i], nm) == 0;
				if (!dup)
					snprintf(names[n++], 64, "%s", nm);
			}
			closedir(dir);
		}
	}
	/* sorted, for stable messages */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char t[64];
			memcpy(t, names[j], 64);
			memcpy(names[j], names[j - 1], 64);
			memcpy(names[j - 1], t, 64);
		}
	size_t w = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && w < size; i++)
		w += (size_t)snprintf(buf + w, size - w, "%s%s", i ? ", " : "",
				      names[i]);
	if (n == 0)
		snprintf(buf, size, "(none found)");
}

static bool valid_plugin_name(const char *name)
{
	if (!*name || strlen(name) > 63)
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '-' || *p == '_'))
			return false;
	return true;
}

/*
 * Look for (kind, name) under one root.  A file of another kind with the
 * same name (plugins/ and flat directories mix kinds) is skipped; two
 * files of the right kind are a duplicate.  Returns WS_OK with out filled,
 * WS_ENOENT when the root has none, or an error.
 */
static int load_from_root(const struct ws_search *s, const char *root,
			  enum ws_kind kind, const char *name,
			  struct ws_loaded *out, struct ws_err *err)
{
	char c[3][1024];
	size_t nc = candidates(s, root, kind, name, c);
	bool found = false;
	for (size_t i = 0; i < nc; i++) {
		if (!file_exists(c[i]))
			continue;
		struct ws_loaded ld;
		int rc = open_file(c[i], 0, name, &ld, err);
		if (rc) {
			if (found)
				ws_plugin_unload(out);
			return rc;
		}
		if (ld.desc->kind != (uint32_t)kind) {
			ws_plugin_unload(&ld);
			continue;
		}
		if (found) {
			ws_err_at(err, WS_EPLUGIN, c[i], 0,
				  "duplicate %s plugin '%s': %s also provides it",
				  ws_kind_name(kind), name, out->path);
			ws_plugin_unload(&ld);
			ws_plugin_unload(out);
			return WS_EPLUGIN;
		}
		*out = ld;
		found = true;
	}
	return found ? WS_OK : WS_ENOENT;
}

int ws_plugin_load(const struct ws_search *s, enum ws_kind kind,
		   const char *name, struct ws_loaded *out, struct ws_err *err)
{
	memset(out, 0, sizeof *out);
	if (!valid_plugin_name(name))
		return ws_err_set(err, WS_EINVAL,
				  "invalid %s plugin name '%s' (letters, digits, - and _)",
				  ws_kind_name(kind), name);
	for (size_t b = 0; b < WS_ARRAY_LEN(builtins); b++) {
		const struct ws_plugin *d = builtins[b];
		if (d->kind != (uint32_t)kind || strcmp(d->name, name) != 0)
			continue;
		int rc = ws_plugin_check(d, kind, name, "built in", err);
		if (rc)
			return rc;
		/* a file of the same kind may not take a built-in's name */
		for (size_t r = 0; r < s->n_roots; r++) {
			struct ws_loaded ld;
			rc = load_from_root(s, s->roots[r], kind, name, &ld, err);
			if (rc == WS_OK) {
				ws_err_at(err, WS_EPLUGIN, ld.path, 0,
					  "duplicate %s plugin '%s': warpsim has one built in",
					  ws_kind_name(kind), name);
				ws_plugin_unload(&ld);
				return WS_EPLUGIN;
			}
			if (rc != WS_ENOENT)
				return rc;
		}
		out->desc = d;
		snprintf(out->path, sizeof out->path, "built in");
		return WS_OK;
	}
	for (size_t r = 0; r < s->n_roots; r++) {
		int rc = load_from_root(s, s->roots[r], kind, name, out, err);
		if (rc != WS_ENOENT)
			return rc;
	}
	char avail[1024], roots[1024];
	available(s, kind, avail, sizeof avail);
	size_t w = 0;
	roots[0] = '\0';
	for (size_t r = 0; r < s->n_roots && w < sizeof roots; r++)
		w += (size_t)snprintf(roots + w, sizeof roots - w, "%s%s",
				      r ? ":" : "", s->roots[r]);
	return ws_err_set(err, WS_ENOENT,
			  "unknown %s plugin '%s'; available: %s (searched %s)",
			  ws_kind_name(kind), name, avail, roots);
}

void ws_plugin_unload(struct ws_loaded *l)
{
	if (l->dl)
		dlclose(l->dl);
	memset(l, 0, sizeof *l);
}

/* ---- the catalog: what `warpsim plugins` and `describe` show ----------------- */

struct cat_entry {
	struct ws_plugin_info info;
	struct ws_loaded ld;
	char path[1024];
};

struct ws_catalog {
	struct ws_opts opts;
	struct ws_search search;
	struct cat_entry *v;
	size_t n;
};

void ws_plugin_ops_copy(const struct ws_plugin *d, void *buf, size_t size)
{
	memset(buf, 0, size);
	memcpy(buf, d->ops, d->ops_size < size ? d->ops_size : size);
	/* the copy says how large the table is as the kernel sees it */
	*(uint32_t *)buf = (uint32_t)size;
}

static void cat_add(struct ws_catalog *c, const struct ws_plugin *d,
		    const struct ws_loaded *ld, const char *path)
{
	c->v = ws_xrealloc(c->v, c->n + 1, sizeof *c->v);
	struct cat_entry *e = &c->v[c->n++];
	memset(e, 0, sizeof *e);
	e->info.kind = (enum ws_kind)d->kind;
	if (ld)
		e->ld = *ld;
	snprintf(e->path, sizeof e->path, "%s", path);
}

/* Facts from the descriptor, its ops read through a zero-extended copy. */
static void cat_fill(struct cat_entry *e, const struct ws_plugin *d)
{
	struct ws_plugin_info *i = &e->info;
	i->name = d->name;
	i->version = d->version;
	i->summary = d->summary;
	i->path = e->path;
	i->params = d->params;
	uint8_t ops[256];
	ws_plugin_ops_copy(d, ops, sizeof ops);
	if (d->kind == WS_KIND_CC)
		i->cc_needs = ((const struct ws_cc_ops *)ops)->needs;
	if (d->kind == WS_KIND_TOPO)
		i->default_routing = ((const struct ws_topo_ops *)ops)->default_routing;
}

static const struct ws_plugin *cat_desc(const struct cat_entry *e)
{
	return e->ld.desc;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct cat_entry *x = a, *y = b;
	if (x->info.kind != y->info.kind)
		return x->info.kind < y->info.kind ? -1 : 1;
	return strcmp(cat_desc(x)->name, cat_desc(y)->name);
}

static bool cat_has(const struct ws_catalog *c, uint32_t kind, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].info.kind == kind && strcmp(cat_desc(&c->v[i])->name, name) == 0)
			return true;
	return false;
}

/* Every .so of one folder; the first of a (kind, name) wins, like loading. */
static void cat_scan_dir(struct ws_catalog *c, const char *dirpath)
{
	const struct ws_opts *o = &c->opts;
	DIR *dir = opendir(dirpath);
	if (!dir)
		return;
	struct dirent *de;
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);
		if (l < 4 || strcmp(de->d_name + l - 3, ".so") != 0)
			continue;
		char path[1024], nm[256];
		if (snprintf(path, sizeof path, "%s/%s", dirpath, de->d_name) >=
		    (int)sizeof path)
			continue;
		snprintf(nm, sizeof nm, "%.*s", (int)(l - 3), de->d_name);
		struct ws_loaded ld;
		struct ws_err e;
		if (open_file(path, 0, nm, &ld, &e)) {
			if (o->on_warning) {
				char msg[1600];
				ws_err_format(&e, msg, sizeof msg);
				char line[1700];
				snprintf(line, sizeof line, "skipping %s", msg);
				o->on_warning(o->ctx, line);
			}
			continue;
		}
		if (cat_has(c, ld.desc->kind, ld.desc->name)) {
			ws_plugin_unload(&ld);
			continue;
		}
		cat_add(c, ld.desc, &ld, path);
	}
	closedir(dir);
}

static void cat_finish(struct ws_catalog *c)
{
	if (c->n) /* v is NULL when nothing was found */
		qsort(c->v, c->n, sizeof *c->v, cmp_entry);
	for (size_t i = 0; i < c->n; i++)
		cat_fill(&c->v[i], cat_desc(&c->v[i]));
}

static int cat_new(struct ws_catalog **out, const struct ws_opts *opts,
		   struct ws_err *err)
{
	*out = NULL;
	struct ws_catalog *c = ws_xcalloc(1, sizeof *c);
	int rc = ws_opts_read(&c->opts, opts, err);
	if (!rc)
		rc = ws_search_init(&c->search, c->opts.plugin_path, err);
	if (rc) {
		free(c);
		return rc;
	}
	*out = c;
	return WS_OK;
}

int ws_catalog_open(struct ws_catalog **out, const struct ws_opts *opts,
		    struct ws_err *err)
{
	struct ws_catalog *c;
	int rc = cat_new(&c, opts, err);
	if (rc)
		return rc;
	for (size_t b = 0; b < WS_ARRAY_LEN(builtins); b++)
		cat_add(c, builtins[b], &(struct ws_loaded){ .desc = builtins[b] },
			"built in");
	/* each kind's folder (and its .libs in a build tree), then the root */
	for (size_t r = 0; r < c->search.n_roots; r++) {
		for (uint32_t k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD; k++) {
			char dirpath[1024];
			snprintf(dirpath, sizeof dirpath, "%s/%s", c->search.roots[r],
				 ws_kind_dir(k));
			cat_scan_dir(c, dirpath);
			strncat(dirpath, "/.libs", sizeof dirpath - strlen(dirpath) - 1);
			cat_scan_dir(c, dirpath);
		}
		cat_scan_dir(c, c->search.roots[r]);
	}
	cat_finish(c);
	*out = c;
	return WS_OK;
}

int ws_catalog_find(struct ws_catalog **out, const char *name,
		    enum ws_kind kind, const struct ws_opts *opts,
		    struct ws_err *err)
{
	struct ws_catalog *c;
	int rc = cat_new(&c, opts, err);
	if (rc)
		return rc;
	for (uint32_t k = WS_KIND_TOPO; k <= WS_KIND_WORKLOAD; k++) {
		if (kind && k != (uint32_t)kind)
			continue;
		struct ws_loaded ld;
		struct ws_err e;
		int lrc = ws_plugin_load(&c->search, k, name, &ld, &e);
		if (lrc == WS_ENOENT)
			continue;
		if (lrc) {
			if (err)
				*err = e;
			ws_catalog_free(c);
			return lrc;
		}
		cat_add(c, ld.desc, &ld, ld.path);
	}
	cat_finish(c);
	*out = c;
	return WS_OK;
}

size_t ws_catalog_count(const struct ws_catalog *c)
{
	return c->n;
}

const struct ws_plugin_info *ws_catalog_get(const struct ws_catalog *c,
					    size_t i)
{
	return i < c->n ? &c->v[i].info : NULL;
}

const char *ws_catalog_root(const struct ws_catalog *c, size_t i)
{
	return i < c->search.n_roots ? c->search.roots[i] : NULL;
}

void ws_catalog_free(struct ws_catalog *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		ws_plugin_unload(&c->v[i].ld);
	free(c->v);
	ws_search_fini(&c->search);
	free(c);
}
