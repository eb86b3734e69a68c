/* SPDX-License-Identifier: MIT */
/*
 * One fabric build shared by the simulations that ask for the same one
 * (ws_opts.fabric_cache): a sweep of experiments on one large fabric holds
 * it in memory once, not once per experiment.
 *
 * What a build produces splits in two.  Read-only during a run, shared
 * outright by every user: the nodes, the host list, the node -> NIC/switch
 * index, the port -> far-end node map, the facts every run's set-up needs
 * (ws_fabfacts), and the routing rule's prepared state when the rule hands
 * it over (its share/adopt/release ops, ABI 2.2).  Per run: the NICs, the
 * switches' shared-buffer state, and the ports, whose link facts are fixed
 * but whose queues and counters every run writes.  The ports are built
 * once, copied into a memfd, and each user maps that copy MAP_PRIVATE: the
 * pages a run writes become its own (copy on write), the others stay one
 * copy in memory.  For that to pay, nothing writes every port at set-up:
 * a port's [switch] fields are set at its first packet (ws_port_setup).
 *
 * The key of a build is the topology plugin's name and every parameter as
 * the kernel formats it, the directory relative paths resolve in, and, when
 * the routing rule shares its state, the rule's name and parameters.  The
 * cache is thread-safe: a mutex guards the list, and a simulation asking
 * for a key another thread is building waits for that build rather than
 * making its own.  Builds are reference-counted: one leaves memory when the
 * cache has been freed and its last simulation is freed, in either order.
 */
#define _GNU_SOURCE /* memfd_create */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

enum { ENT_BUILDING, ENT_READY };

struct ws_fabent {
	struct ws_fabric_cache *cache;
	struct ws_fabent *next;
	char *key;
	int state;                 /* ENT_* */
	unsigned users;            /* simulations holding it */
	/* the build (read-only once ENT_READY) */
	struct ws_fabric fab;
	struct ws_node *nodes;
	uint32_t cap_nodes;
	uint32_t *peer_node, *hosts, *aux;
	uint64_t host_rate;
	struct ws_fabfacts facts;
	int ports_fd;              /* the template ports, mapped MAP_PRIVATE; -1: none */
	size_t ports_bytes;
	const struct ws_port *tmpl; /* one read-only shared mapping of it (links) */
	struct ws_warnlog warns;   /* what the build warned, told to every user */
	/* the routing rule's prepared state, when it shares it */
	void *rt_state;
	void (*rt_release)(void *state);
	void *rt_dl;               /* keeps the rule's code loaded for rt_release */
};

struct ws_fabric_cache {
	pthread_mutex_t lock;
	pthread_cond_t built;      /* a build finished (or failed) */
	struct ws_fabent *head;
	size_t builds;
	bool freed;                /* ws_fabric_cache_free was called */
};

int ws_fabric_cache_new(struct ws_fabric_cache **out, struct ws_err *err)
{
	struct ws_fabric_cache *c = ws_xcalloc(1, sizeof *c);
	if (pthread_mutex_init(&c->lock, NULL)) {
		free(c);
		*out = NULL;
		return ws_err_set(err, WS_ENOMEM, "fabric cache: cannot create its mutex");
	}
	if (pthread_cond_init(&c->built, NULL)) {
		pthread_mutex_destroy(&c->lock);
		free(c);
		*out = NULL;
		return ws_err_set(err, WS_ENOMEM,
				  "fabric cache: cannot create its condition variable");
	}
	*out = c;
	return WS_OK;
}

size_t ws_fabric_cache_builds(const struct ws_fabric_cache *c)
{
	struct ws_fabric_cache *m = (struct ws_fabric_cache *)c;
	pthread_mutex_lock(&m->lock);
	size_t n = c->builds;
	pthread_mutex_unlock(&m->lock);
	return n;
}

void ws_warnlog_free(struct ws_warnlog *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->msg[i]);
	free(w->msg);
	memset(w, 0, sizeof *w);
}

static void entry_free(struct ws_fabent *e)
{
	if (e->state == ENT_READY) {
		ws_fabric_release_shared(e->nodes, e->cap_nodes, e->peer_node,
					 e->fab.n_ports, e->hosts, e->aux, &e->facts);
		ws_fabric_unmap((void *)e->tmpl, e->ports_bytes);
	}
	if (e->ports_fd >= 0)
		close(e->ports_fd);
	if (e->rt_state)
		e->rt_release(e->rt_state);
	if (e->rt_dl)
		dlclose(e->rt_dl);
	ws_warnlog_free(&e->warns);
	free(e->key);
	free(e);
}

static void unlink_entry(struct ws_fabric_cache *c, struct ws_fabent *e)
{
	for (struct ws_fabent **p = &c->head; *p; p = &(*p)->next)
		if (*p == e) {
			*p = e->next;
			return;
		}
}

static void cache_destroy(struct ws_fabric_cache *c)
{
	pthread_cond_destroy(&c->built);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

void ws_fabric_cache_free(struct ws_fabric_cache *c)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->lock);
	c->freed = true;
	for (struct ws_fabent **p = &c->head; *p;) {
		struct ws_fabent *e = *p;
		if (e->users == 0) {
			*p = e->next;
			entry_free(e);
		} else {
			p = &e->next;
		}
	}
	bool empty = c->head == NULL;
	pthread_mutex_unlock(&c->lock);
	if (empty)
		cache_destroy(c);
}

void ws_fabcache_put(struct ws_sim *sim)
{
	struct ws_fabent *e = sim->fabent;
	struct ws_fabric_cache *c = e->cache;
	sim->fabent = NULL;
	pthread_mutex_lock(&c->lock);
	bool gone = --e->users == 0 && c->freed;
	if (gone)
		unlink_entry(c, e);
	bool last = c->freed && c->head == NULL;
	pthread_mutex_unlock(&c->lock);
	if (gone)
		entry_free(e);
	if (last)
		cache_destroy(c);
}

/* ---- the key ---------------------------------------------------------------- */

struct keybuf {
	char *s;
	size_t n, cap;
};

static void key_add(struct keybuf *k, const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (k->n + la + lb + 3 > k->cap) {
		k->cap = 2 * (k->n + la + lb + 3);
		k->s = ws_xrealloc(k->s, k->cap, 1);
	}
	memcpy(k->s + k->n, a, la);
	k->s[k->n + la] = '=';
	memcpy(k->s + k->n + la + 1, b, lb);
	k->n += la + lb + 2;
	k->s[k->n - 1] = '\n';
	k->s[k->n] = '\0';
}

/* The plugin's name and each parameter as the kernel formats it (what
 * ws_sim_plugin_digest hashes), spelled out: no collisions. */
static void key_plugin(struct keybuf *k, const struct ws_sim *sim, enum ws_kind kind)
{
	key_add(k, ws_kind_name(kind), ws_sim_plugin_name(sim, kind));
	const struct ws_inst *in = ws_sim_instance(sim, kind);
	if (!in || !in->plugin->params || !in->conf)
		return;
	for (const struct ws_param *q = in->plugin->params; q->key; q++) {
		char buf[1024];
		ws_param_format(q, (const char *)in->conf + q->offset, buf, sizeof buf);
		key_add(k, q->key, buf);
	}
}

static char *make_key(const struct ws_sim *sim, bool with_routing)
{
	struct keybuf k = { 0 };
	key_plugin(&k, sim, WS_KIND_TOPO);
	/* relative file names in the topology's keys resolve here */
	key_add(&k, "dir", sim->cfg_dir);
	if (with_routing) {
		key_plugin(&k, sim, WS_KIND_ROUTING);
		/* a rule's prepared tables follow the reference's order too */
		key_add(&k, "ecmp", !sim->ref.ecmp ? "xxhash"
			: sim->ref.switch_ascending ? "ns3-ascending" : "ns3-descending");
	}
	return k.s;
}

/* The rule hands its prepared state over (all three ops, ABI 2.2). */
static bool routing_shares(const struct ws_sim *sim)
{
	const struct ws_routing_ops *r = WS_ROUTING_OPS(sim);
	return r->share && r->adopt && r->release;
}

/* ---- building and adopting ------------------------------------------------------ */

static size_t ports_bytes(uint32_t n_ports)
{
	return ((size_t)n_ports * sizeof(struct ws_port) + 4095) & ~(size_t)4095;
}

/* The builder made its ports in the entry's memfd (MAP_SHARED): map that
 * privately instead, and once more read-only for the links. */
static int publish_ports(struct ws_fabent *e, struct ws_sim *sim, struct ws_err *err)
{
	size_t bytes = ports_bytes(sim->fab.n_ports);
	munmap(sim->ports, ports_bytes(sim->cap_ports));
	sim->ports = NULL;
	sim->ports_memfd = false;
	int fd = e->ports_fd;
	void *m = MAP_FAILED, *t = MAP_FAILED;
	if (ftruncate(fd, (off_t)bytes) == 0) {
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		t = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	}
	if (m == MAP_FAILED || t == MAP_FAILED) {
		if (m != MAP_FAILED)
			munmap(m, bytes);
		if (t != MAP_FAILED)
			munmap(t, bytes);
		sim->cap_ports = 0;
		return ws_err_set(err, WS_ENOMEM, "fabric cache: cannot map %zu bytes "
				  "of shared ports: %s", bytes, strerror(errno));
	}
	sim->ports = m;
	sim->links = t;
	sim->cap_ports = sim->fab.n_ports;
	e->ports_bytes = bytes;
	e->tmpl = t;
	return WS_OK;
}

/* The builder's arrays become the entry's; sim uses them as an adopter. */
static int publish(struct ws_fabent *e, struct ws_sim *sim, bool share_rt,
		   struct ws_err *err)
{
	int rc = publish_ports(e, sim, err);
	if (rc)
		return rc;
	e->fab = sim->fab;
	e->nodes = sim->nodes;
	e->cap_nodes = sim->cap_nodes;
	e->peer_node = sim->peer_node;
	e->hosts = sim->hosts;
	e->aux = sim->aux;
	e->host_rate = sim->host_rate;
	e->facts = sim->facts;
	/* nobody writes them any more: a write is a crash, not a wrong result */
	mprotect(e->nodes, ((size_t)e->cap_nodes * sizeof *e->nodes + 4095) & ~(size_t)4095,
		 PROT_READ);
	mprotect(e->peer_node, ((size_t)e->fab.n_ports * sizeof *e->peer_node + 4095) &
				       ~(size_t)4095, PROT_READ);
	if (share_rt) {
		struct ws_slot *rt = &sim->slot[WS_KIND_ROUTING];
		e->rt_state = WS_ROUTING_OPS(sim)->share(&rt->inst);
		e->rt_release = WS_ROUTING_OPS(sim)->release;
		if (e->rt_state && rt->ld.dl)
			e->rt_dl = dlopen(rt->ld.path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
	}
	sim->fabent = e;
	return WS_OK;
}

static int adopt(struct ws_fabent *e, struct ws_sim *sim, struct ws_err *err)
{
	sim->fabent = e;           /* from here, ws_fabric_free gives it back */
	sim->fabric_shared = true;
	sim->fab = e->fab;
	sim->nodes = e->nodes;
	sim->cap_nodes = e->cap_nodes;
	sim->peer_node = e->peer_node;
	sim->hosts = e->hosts;
	sim->aux = e->aux;
	sim->host_rate = e->host_rate;
	sim->facts = e->facts;
	void *m = mmap(NULL, e->ports_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		       e->ports_fd, 0);
	if (m == MAP_FAILED)
		return ws_err_set(err, WS_ENOMEM, "fabric cache: cannot map the shared "
				  "ports (%zu bytes): %s", e->ports_bytes, strerror(errno));
	sim->ports = m;
	sim->links = e->tmpl;
	sim->cap_ports = e->fab.n_ports;
	for (size_t i = 0; i < e->warns.n; i++)
		ws_warn(sim, "%s", e->warns.msg[i]);
	if (e->rt_state)
		WS_ROUTING_OPS(sim)->adopt(&sim->slot[WS_KIND_ROUTING].inst, e->rt_state);
	return WS_OK;
}

int ws_fabcache_build(struct ws_sim *sim, const struct ws_cfg *cfg,
		      ws_build_fn build, bool *shared_routing, struct ws_err *err)
{
	struct ws_fabric_cache *c = sim->opts.fabric_cache;
	bool share_rt = routing_shares(sim);
	char *key = make_key(sim, share_rt);
	*shared_routing = false;
	pthread_mutex_lock(&c->lock);
	for (;;) {
		struct ws_fabent *e = c->head;
		while (e && strcmp(e->key, key))
			e = e->next;
		if (!e)
			break;
		if (e->state == ENT_READY) {
			e->users++;
			pthread_mutex_unlock(&c->lock);
			free(key);
			*shared_routing = e->rt_state != NULL;
			return adopt(e, sim, err);
		}
		/* another thread is building it: wait, then look again (a failed
		 * build is gone, and this one tries, for its own error) */
		pthread_cond_wait(&c->built, &c->lock);
	}
	struct ws_fabent *e = ws_xcalloc(1, sizeof *e);
	e->cache = c;
	e->key = key;
	e->state = ENT_BUILDING;
	e->users = 1;
	e->ports_fd = -1;
	e->next = c->head;
	c->head = e;
	pthread_mutex_unlock(&c->lock);

	int rc = WS_OK;
	e->ports_fd = memfd_create("warpsim-ports", MFD_CLOEXEC);
	if (e->ports_fd < 0)
		rc = ws_err_set(err, WS_ENOMEM, "fabric cache: memfd_create: %s",
				strerror(errno));
	sim->ports_memfd = e->ports_fd >= 0;
	sim->ports_fd = e->ports_fd;
	sim->warnlog = &e->warns;
	if (!rc)
		rc = build(sim, cfg, share_rt, err);
	sim->warnlog = NULL;
	if (!rc)
		rc = publish(e, sim, share_rt, err);
	pthread_mutex_lock(&c->lock);
	if (rc) {
		unlink_entry(c, e);
	} else {
		e->state = ENT_READY;
		c->builds++;
	}
	pthread_cond_broadcast(&c->built);
	pthread_mutex_unlock(&c->lock);
	if (rc) {
		/* the simulation frees its own arrays (its ports mapping stays
		 * valid without the file) */
		sim->ports_memfd = false;
		entry_free(e);
		return rc;
	}
	*shared_routing = e->rt_state != NULL;
	return WS_OK;
}
