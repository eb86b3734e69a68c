/* SPDX-License-Identifier: MIT */
/*
 * clos-wire: one implementation of the multi-tier Clos wiring, compiled into
 * the clos, fat-tree and rail topology modules.  Each plugin turns its keys
 * into a `struct clos_spec`; this file checks it, numbers the nodes, and
 * wires them so that routing/updown routes the result with no table.
 *
 * Model.  Tiers t = 1..T (T = 2..4; tier 1 = leaf/ToR).  A tier-t switch has
 * d_t down ports, u_t up ports (u_T = 0), and reaches each tier-(t+1) switch
 * it connects to with m_t parallel links.  Blocks nest: a level-1 block is a
 * leaf and its d_1 hosts; a level-(t+1) block holds c_{t+1} level-t blocks
 * plus s_{t+1} tier-(t+1) switches; level T is one block, the whole fabric.
 * s_1 = 1.  The "top switches" of a level-t block are its s_t tier-t
 * switches.  Two patterns connect tier t to tier t+1 inside a block:
 *   pod:   every top switch of every child block connects to every
 *          tier-(t+1) switch of the block: s_{t+1} = u_t / m_t, down group
 *          g_{t+1} = s_t m_t, c_{t+1} = d_{t+1} / g_{t+1};
 *   plane: top switch j of every child block connects to plane j, the
 *          q = u_t / m_t tier-(t+1) switches j q .. j q + q - 1 of the block:
 *          s_{t+1} = s_t q, g_{t+1} = m_t, c_{t+1} = d_{t+1} / m_t.
 * Oversubscription is d_t > u_t.  A k-ary fat-tree is T = 3, d = u = k/2 at
 * tiers 1-2, d_3 = k, m = 1, pod then plane (topo/fat-tree.c).
 *
 * Ports.  Down ports first: child block x of a switch's block uses ports
 * [x g, (x+1) g); under `pod` the j-th top switch of child x uses ports
 * x g + j m + l (l < m), under `plane` x m + l.  Then up ports d_t .. d_t +
 * u_t - 1: up port d_t + i m + l is link l to the i-th switch the switch
 * reaches (under `pod` switch i of the parent block, under `plane` switch
 * j q + i of plane j).  A host has one port per plane; port p leads to its
 * leaf in plane p.
 *
 * Addresses.  A host's T digits are (its level-(T-1) block within the
 * fabric, ..., its level-1 block within its level-2 block, its port on the
 * leaf).  A tier-t switch carries its level-t block's T - t digits, so a
 * switch covers exactly the hosts below it and the destination's next digit
 * x selects down ports [x g, (x+1) g): updown needs no table.
 *
 * Node ids.  Hosts first, in address order (host id = leaf * d_1 + port,
 * leaves numbered in address order) unless the plugin supplies a placement
 * (rail numbers GPUs server-major).  Then the switches, plane-major: plane
 * p's switches are one contiguous run (plane 0 first), inside it tier by
 * tier, block-major: the switch at position j of level-t block b is
 * first_t + b s_t + j.  `index` is a switch's position among its siblings:
 * for a leaf its block's number within its level-2 block (its last address
 * digit), for a higher switch its position j in its block; a host's is its
 * port on the leaf.  With one plane and no placement this reproduces the
 * numbering of topo/fat-tree.c exactly.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clos-wire.h"

static int clos_too_large(const struct clos_spec *s, struct ws_err *err,
			  uint64_t what, const char *unit)
{
	return ws_err_key(err, WS_EINVAL, s->key_size,
			"the fabric is too large: at least %llu %s (the limits are "
			"2^31 nodes and 2^32 ports)",
			(unsigned long long)what, unit);
}

int clos_tier_links(struct clos_spec *s, const struct clos_tier_keys *k,
		    uint32_t declared, uint64_t host_rate, uint64_t link_rate,
		    ws_time link_delay, struct ws_err *err)
{
	static const struct ws_param delay_p = {
		.key = "link_delay_tier", .type = WS_PT_TIME, .min = "0s", .max = "1s",
	};
	static const char *const delay_key[] = { NULL, "link_delay_tier1",
		"link_delay_tier2", "link_delay_tier3", "link_delay_tier4" };
	static const char *const rate_key[] = { NULL, NULL, "link_rate_tier2",
		"link_rate_tier3", "link_rate_tier4" };
	for (uint32_t t = 1; t <= declared && t <= CLOS_MAX_TIERS; t++) {
		const char *d = k->delay[t] ? k->delay[t] : "";
		const char *set = d[0] ? delay_key[t] : t >= 2 && k->rate[t] ? rate_key[t] : NULL;
		if (t > s->tiers && set)
			return ws_err_key(err, WS_EINVAL, set, "%s is set but the fabric "
					"has %u tiers of links (tier 1: hosts to leaves)",
					set, s->tiers);
		if (t > s->tiers)
			continue;
		s->rate[t] = t == 1 ? host_rate : k->rate[t] ? k->rate[t] : link_rate;
		s->delay[t] = link_delay;
		char why[256];
		if (d[0] && ws_param_parse(&delay_p, d, &s->delay[t], why, sizeof why))
			return ws_err_key(err, WS_EINVAL, delay_key[t], "%s = %s: %s",
					delay_key[t], d, why);
	}
	return WS_OK;
}

/* The tier-local checks: port counts, radix, parallel links. */
static int clos_check_tier(const struct clos_spec *s, uint32_t t,
			   struct ws_err *err)
{
	const struct clos_tier *c = &s->tier[t];
	const uint64_t ports = (uint64_t)c->down + c->up;
	if (c->down == 0)
		return ws_err_key(err, WS_EINVAL, c->key_down, "%s = 0: a %s switch needs down ports",
				c->key_down, c->name);
	if (t == s->tiers && c->up != 0)
		return ws_err_key(err, WS_EINVAL, c->key_up, "%s = %u: the top tier (%s) has no up ports",
				c->key_up, c->up, c->name);
	if (t < s->tiers && c->up == 0)
		return ws_err_key(err, WS_EINVAL, c->key_up, "%s = 0: a %s switch needs up ports to "
				"reach tier %u", c->key_up, c->name, t + 1);
	if (ports > c->radix)
		return ws_err_key(err, WS_EINVAL, c->key_radix,
				"%s = %u: a %s switch needs %u down%s%s%s + %u up = %llu "
				"ports (ports oversubscribed)", c->key_radix, c->radix,
				c->name, c->down, c->down_why ? " (" : "",
				c->down_why ? c->down_why : "", c->down_why ? ")" : "",
				c->up, (unsigned long long)ports);
	if (ports > UINT16_MAX)
		return ws_err_key(err, WS_EINVAL, c->key_radix,
				"a %s switch would have %llu ports; port numbers are "
				"16-bit (at most %u)", c->name, (unsigned long long)ports,
				UINT16_MAX);
	if (t == s->tiers)
		return WS_OK;
	if (c->links == 0)
		return ws_err_key(err, WS_EINVAL, c->key_links, "%s = 0: at least one link", c->key_links);
	if (c->up % c->links)
		return ws_err_key(err, WS_EINVAL, c->key_links,
				"%s = %u does not divide %s = %u (a %s switch's up ports "
				"are groups of %u parallel links)", c->key_links, c->links,
				c->key_up, c->up, c->name, c->links);
	return WS_OK;
}

/* The tier and plane counts, and every tier on its own. */
static int clos_check_spec(const struct clos_spec *s, struct ws_err *err)
{
	const uint32_t T = s->tiers;
	if (T < 2 || T > CLOS_MAX_TIERS)
		return ws_err_key(err, WS_EINVAL, s->key_tiers, "%s = %u: a Clos has 2 to %d tiers",
				s->key_tiers, T, CLOS_MAX_TIERS);
	if (s->planes < 1 || s->planes > CLOS_MAX_PLANES)
		return ws_err_key(err, WS_EINVAL, s->key_planes, "%s = %u: 1 to %d planes",
				s->key_planes, s->planes, CLOS_MAX_PLANES);
	for (uint32_t t = 1; t <= T; t++) {
		int rc = clos_check_tier(s, t, err);
		if (rc)
			return rc;
	}
	return WS_OK;
}

/* s_t, g_t and c_t (switches per block, down group, child blocks), bottom
 * up; a tier's down ports must take whole groups. */
static int clos_plan_groups(const struct clos_spec *s, struct clos_plan *p,
			    struct ws_err *err)
{
	uint64_t sw = 1;
	p->sw[1] = 1;
	p->group[1] = 1;
	p->child[1] = s->tier[1].down;
	for (uint32_t t = 1; t < s->tiers; t++) {
		const struct clos_tier *lo = &s->tier[t], *hi = &s->tier[t + 1];
		const uint32_t m = lo->links, q = lo->up / m;
		uint64_t g;
		if (hi->connect == CLOS_POD) {
			g = sw * m;
			sw = q;
			if (g > hi->down || hi->down % g)
				return ws_err_key(err, WS_EINVAL, hi->key_down,
						"%s = %u is not a multiple of %llu, the down "
						"group of a %s switch (%llu %s switch(es) per "
						"child block x %s = %u parallel links)",
						hi->key_down, hi->down, (unsigned long long)g,
						hi->name, (unsigned long long)(g / m), lo->name,
						lo->key_links, m);
		} else {
			g = m;
			sw *= q;
			if (hi->down % m)
				return ws_err_key(err, WS_EINVAL, hi->key_down,
						"%s = %u is not a multiple of %s = %u (a %s "
						"switch reaches each child block with %u "
						"parallel links)", hi->key_down, hi->down,
						lo->key_links, m, hi->name, m);
		}
		if (sw >= CLOS_MAX_NODES)
			return clos_too_large(s, err, sw, "switches per block");
		p->sw[t + 1] = (uint32_t)sw;
		p->group[t + 1] = (uint32_t)g;
		p->child[t + 1] = hi->down / (uint32_t)g;
	}
	return WS_OK;
}

/* The blocks of each tier, top down. */
static int clos_plan_blocks(const struct clos_spec *s, struct clos_plan *p,
			    struct ws_err *err)
{
	uint64_t blocks = 1;
	for (uint32_t t = s->tiers; t >= 1; t--) {
		p->blocks[t] = (uint32_t)blocks;
		if (t > 1 && (blocks *= p->child[t]) >= CLOS_MAX_NODES)
			return clos_too_large(s, err, blocks, "blocks");
	}
	return WS_OK;
}

/* The totals: hosts, each tier's first switch in a plane, and the nodes,
 * ports and links of all planes. */
static int clos_plan_totals(const struct clos_spec *s, struct clos_plan *p,
			    struct ws_err *err)
{
	const uint64_t hosts = (uint64_t)p->blocks[1] * s->tier[1].down;
	if (hosts >= CLOS_MAX_NODES)
		return clos_too_large(s, err, hosts, "hosts");
	uint64_t plane_sw = 0, plane_ports = 0, plane_links = 0;
	for (uint32_t t = 1; t <= s->tiers; t++) {
		const uint64_t n = (uint64_t)p->blocks[t] * p->sw[t];
		if (plane_sw + n >= CLOS_MAX_NODES)
			return clos_too_large(s, err, plane_sw + n, "switches");
		p->first[t] = (uint32_t)plane_sw;
		plane_sw += n;
		plane_ports += n * (s->tier[t].down + s->tier[t].up);
		plane_links += n * s->tier[t].up;
	}
	const uint64_t nodes = hosts + s->planes * plane_sw;
	const uint64_t ports = s->planes * (hosts + plane_ports);
	if (nodes >= CLOS_MAX_NODES)
		return clos_too_large(s, err, nodes, "nodes");
	if (ports >= UINT32_MAX)
		return clos_too_large(s, err, ports, "ports");
	p->hosts = (uint32_t)hosts;
	p->plane_switches = (uint32_t)plane_sw;
	p->nodes = (uint32_t)nodes;
	p->ports = (uint32_t)ports;
	p->links = (uint32_t)(s->planes * (hosts + plane_links));
	return WS_OK;
}

int clos_plan(const struct clos_spec *s, struct clos_plan *p,
	      struct ws_err *err)
{
	memset(p, 0, sizeof *p);
	int rc = clos_check_spec(s, err);
	if (!rc)
		rc = clos_plan_groups(s, p, err);
	if (!rc)
		rc = clos_plan_blocks(s, p, err);
	if (!rc)
		rc = clos_plan_totals(s, p, err);
	return rc;
}

/* Node id of the switch at position j of level-t block b, in `plane`. */
static inline uint32_t clos_switch_id(const struct clos_plan *p, uint32_t plane,
				      uint32_t t, uint32_t b, uint32_t j)
{
	return p->hosts + plane * p->plane_switches + p->first[t] + b * p->sw[t] + j;
}

/* The T - t address digits of level-t block b. */
static void clos_block_addr(const struct clos_spec *s, const struct clos_plan *p,
			    uint32_t t, uint32_t b, uint32_t *addr)
{
	for (uint32_t i = s->tiers - t, lvl = t + 1; i-- > 0; lvl++) {
		addr[i] = b % p->child[lvl];
		b /= p->child[lvl];
	}
}

/* Where host h sits: the plugin's placement, or address order. */
static int clos_host_at(const struct clos_spec *s, const struct clos_plan *p,
			uint32_t h, uint32_t *leaf, uint32_t *port,
			struct ws_err *err)
{
	const uint32_t d1 = s->tier[1].down;
	if (!s->place) {
		*leaf = h / d1;
		*port = h % d1;
		return WS_OK;
	}
	s->place(s->place_arg, h, leaf, port);
	if (*leaf >= p->blocks[1] || *port >= d1)
		return ws_err_set(err, WS_EPLUGIN,
				  "host %u placed on leaf %u port %u, beyond the %u "
				  "leaves of %u down ports", h, *leaf, *port,
				  p->blocks[1], d1);
	return WS_OK;
}

static int clos_add_nodes(const struct clos_spec *s, const struct clos_plan *p,
			  struct ws_builder *b, struct ws_err *err)
{
	const uint32_t T = s->tiers;
	for (uint32_t h = 0; h < p->hosts; h++) {
		uint32_t leaf, port;
		int rc = clos_host_at(s, p, h, &leaf, &port, err);
		if (rc)
			return rc;
		struct ws_node_spec n = { WS_INIT_SIZE(struct ws_node_spec),
			.kind = WS_NODE_HOST, .addr_len = (uint8_t)T,
			.n_ports = (uint16_t)s->planes, .n_up = (uint16_t)s->planes,
			.index = port,
		};
		clos_block_addr(s, p, 1, leaf, n.addr);
		n.addr[T - 1] = port;
		if (ws_builder_add_node(b, &n, err) == WS_NONE)
			return WS_EPLUGIN;
	}
	for (uint32_t plane = 0; plane < s->planes; plane++)
		for (uint32_t t = 1; t <= T; t++) {
			const struct clos_tier *c = &s->tier[t];
			for (uint32_t blk = 0; blk < p->blocks[t]; blk++)
				for (uint32_t j = 0; j < p->sw[t]; j++) {
					struct ws_node_spec n = { WS_INIT_SIZE(struct ws_node_spec),
						.kind = WS_NODE_SWITCH, .level = (uint8_t)t,
						.addr_len = (uint8_t)(T - t),
						.n_ports = (uint16_t)(c->down + c->up),
						.n_down = (uint16_t)c->down,
						.n_up = (uint16_t)c->up,
						.down_group = (uint16_t)p->group[t],
						.index = t == 1 ? blk % p->child[2] : j,
					};
					clos_block_addr(s, p, t, blk, n.addr);
					if (ws_builder_add_node(b, &n, err) == WS_NONE)
						return WS_EPLUGIN;
				}
		}
	return WS_OK;
}

/* The links from the top switches of every level-t block up to tier t+1. */
static int clos_link_tier(const struct clos_spec *s, const struct clos_plan *p,
			  struct ws_builder *b, uint32_t plane, uint32_t t,
			  struct ws_err *err)
{
	const struct clos_tier *lo = &s->tier[t], *hi = &s->tier[t + 1];
	const uint32_t m = lo->links, q = lo->up / m, g = p->group[t + 1];
	for (uint32_t blk = 0; blk < p->blocks[t + 1]; blk++)
		for (uint32_t x = 0; x < p->child[t + 1]; x++)
			for (uint32_t j = 0; j < p->sw[t]; j++) {
				uint32_t a = clos_switch_id(p, plane, t,
							    blk * p->child[t + 1] + x, j);
				for (uint32_t k = 0; k < lo->up; k++) {
					uint32_t i = k / m, l = k % m, pos, down;
					if (hi->connect == CLOS_POD) {
						pos = i;
						down = x * g + j * m + l;
					} else {
						pos = j * q + i;
						down = x * g + l;
					}
					int rc = ws_builder_link(b, a, lo->down + k,
								 clos_switch_id(p, plane, t + 1, blk, pos),
								 down, s->rate[t + 1], s->delay[t + 1], err);
					if (rc)
						return rc;
				}
			}
	return WS_OK;
}

int clos_build(const struct clos_spec *s, struct ws_builder *b,
	       struct ws_err *err)
{
	struct clos_plan p;
	int rc = clos_plan(s, &p, err);
	if (rc)
		return rc;
	if ((rc = ws_builder_reserve(b, p.nodes, p.ports, err)))
		return rc;
	if ((rc = clos_add_nodes(s, &p, b, err)))
		return rc;
	for (uint32_t h = 0; h < p.hosts; h++) {
		uint32_t leaf, port;
		if ((rc = clos_host_at(s, &p, h, &leaf, &port, err)))
			return rc;
		for (uint32_t plane = 0; plane < s->planes; plane++)
			if ((rc = ws_builder_link(b, h, plane,
						  clos_switch_id(&p, plane, 1, leaf, 0),
						  port, s->rate[1], s->delay[1], err)))
				return rc;
	}
	for (uint32_t plane = 0; plane < s->planes; plane++)
		for (uint32_t t = 1; t < s->tiers; t++)
			if ((rc = clos_link_tier(s, &p, b, plane, t, err)))
				return rc;
	ws_builder_set_shape(b, WS_SHAPE_UPDOWN, s->tiers);
	return WS_OK;
}
