/* SPDX-License-Identifier: MIT */
/*
 * dragonfly: the dragonfly of Kim, Dally, Scott and Abts ("Technology-Driven,
 * Highly-Scalable Dragonfly Topology", ISCA 2008).
 *
 * g groups of a routers; every router has p terminals, a-1 local links (the
 * routers of a group are connected all-to-all) and h global links.  With the
 * default g = a*h + 1 every pair of groups is joined by exactly one global
 * link (the balanced, maximum-size dragonfly); a smaller g is allowed when
 * g - 1 divides a*h, and then every pair of groups is joined by
 * C = a*h / (g-1) parallel global links, so no port is left unused.
 *
 * Node ids: hosts first, host (G, r, t) = (G*a + r)*p + t; then the routers,
 * router (G, r) = g*a*p + G*a + r.  Addresses: a host is (group, router,
 * terminal), a router (group, router).  Router ports: 0 .. p-1 to its
 * terminals; p + j to router j of its group, minus one when j > its own
 * index (a-1 local ports); then h global ports.  Global link k (0 .. a*h-1)
 * of a group belongs to router k / h, port p + a-1 + k % h; k = c*(g-1) + t
 * goes to target offset t, copy c, and the `arrangement` maps offsets to
 * groups (absolute: t < G ? t : t+1; palmtree: (G - t - 1) mod g).  The far
 * end is the same copy of the reverse offset, so every link is symmetric
 * (see warpsim/dragonfly.h, the geometry the kernel publishes with the
 * dragonfly shape, which routing/dragonfly routes on).
 *
 * The geometry {p, a, h, g, arrangement} is published (WS_DF_GEOM_*) so the
 * dragonfly routing rule computes ports from addresses without tables.
 */
#include <stdio.h>

#include <warpsim/warpsim.h>

#include <warpsim/dragonfly.h>

static const char *const df_arrangements[] = { "absolute", "palmtree", NULL };

struct df_topo_conf {
	uint64_t p, a, h, g;
	int arrangement; /* WS_DF_ARR_* */
	uint64_t host_rate, local_rate, global_rate;
	ws_time host_delay, local_delay, global_delay;
};

static const struct ws_param df_topo_params[] = {
	WS_PARAM_UINT("p", struct df_topo_conf, p, "2", "1", "65535",
		      "terminals (hosts) per router"),
	WS_PARAM_UINT("a", struct df_topo_conf, a, "4", "1", "65535",
		      "routers per group, connected all-to-all by local links"),
	WS_PARAM_UINT("h", struct df_topo_conf, h, "2", "1", "65535",
		      "global links per router"),
	WS_PARAM_UINT("g", struct df_topo_conf, g, "0", "0", "65533",
		      "groups; 0: a*h + 1 (one global link per group pair); else 2 .. a*h+1 with g-1 dividing a*h"),
	WS_PARAM_ENUM("arrangement", struct df_topo_conf, arrangement, "absolute",
		      df_arrangements,
		      "global link k = c*(g-1) + t of group G goes to: absolute: group t (t+1 if t >= G); palmtree: group (G - t - 1) mod g"),
	WS_PARAM_RATE("host_rate", struct df_topo_conf, host_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of host-to-router links"),
	WS_PARAM_RATE("local_rate", struct df_topo_conf, local_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of the links inside a group"),
	WS_PARAM_RATE("global_rate", struct df_topo_conf, global_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of the links between groups"),
	WS_PARAM_TIME("host_delay", struct df_topo_conf, host_delay, "1us", "0s", "1s",
		      "propagation delay of host-to-router links"),
	WS_PARAM_TIME("local_delay", struct df_topo_conf, local_delay, "1us", "0s", "1s",
		      "propagation delay of the links inside a group"),
	WS_PARAM_TIME("global_delay", struct df_topo_conf, global_delay, "2us", "0s", "1s",
		      "propagation delay of the links between groups (longer cables)"),
	WS_PARAM_END
};

static int df_topo_validate(const void *conf, struct ws_err *err)
{
	const struct df_topo_conf *c = conf;
	const uint64_t ah = c->a * c->h;
	const uint64_t radix = c->p + c->a - 1 + c->h;
	if (radix > 65535) {
		return ws_err_key(err, WS_EINVAL, "h",
			   "a router would have p + a-1 + h = %llu ports; at most 65535",
			   (unsigned long long)radix);
	}
	if (c->g == 1) {
		return ws_err_key(err, WS_EINVAL, "g", "g = 1: a dragonfly needs at least 2 groups");
	}
	if (c->g > ah + 1) {
		return ws_err_key(err, WS_EINVAL, "g",
			   "g = %llu: with a*h = %llu global links per group at most "
			   "a*h + 1 = %llu groups can be connected",
			   (unsigned long long)c->g, (unsigned long long)ah,
			   (unsigned long long)(ah + 1));
	}
	const uint64_t g = c->g ? c->g : ah + 1;
	if (ah % (g - 1)) {
		return ws_err_key(err, WS_EINVAL, "g",
			   "g = %llu: the a*h = %llu global links of a group cannot be "
			   "shared equally by the g-1 = %llu other groups; choose g - 1 "
			   "dividing a*h",
			   (unsigned long long)g, (unsigned long long)ah,
			   (unsigned long long)(g - 1));
	}
	const uint64_t routers = g * c->a;
	const uint64_t nodes = routers * (c->p + 1);
	const uint64_t ports = routers * (c->p + radix);
	if (g > 65533 || nodes >= WS_NONE - 1 || ports >= WS_NONE - 1) {
		return ws_err_key(err, WS_EINVAL, "g",
			   "%llu groups%s of %llu routers make %llu nodes and %llu "
			   "ports; at most 65533 groups and 2^32 - 2 nodes and ports",
			   (unsigned long long)g, c->g ? "" : " (g = 0: a*h + 1)",
			   (unsigned long long)c->a, (unsigned long long)nodes,
			   (unsigned long long)ports);
	}
	return WS_OK;
}

static int df_topo_build(struct ws_inst *inst, struct ws_builder *b,
			 struct ws_err *err)
{
	const struct df_topo_conf *c = inst->conf;
	const uint32_t p = (uint32_t)c->p, a = (uint32_t)c->a, h = (uint32_t)c->h;
	const uint32_t g = c->g ? (uint32_t)c->g : a * h + 1;
	struct ws_df_geom d;
	ws_df_geom_init(&d, p, a, h, g, (uint32_t)c->arrangement);
	const uint32_t radix = p + a - 1 + h, routers = g * a;
	int rc = ws_builder_reserve(b, routers * (p + 1), routers * (p + radix), err);
	if (rc)
		return rc;

	for (uint32_t G = 0; G < g; G++)
		for (uint32_t r = 0; r < a; r++)
			for (uint32_t t = 0; t < p; t++) {
				struct ws_node_spec s = { WS_INIT_SIZE(struct ws_node_spec),
					.kind = WS_NODE_HOST, .addr_len = 3, .n_ports = 1,
					.n_up = 1, .index = t, .addr = { G, r, t },
				};
				if (ws_builder_add_node(b, &s, err) == WS_NONE)
					return WS_EPLUGIN;
			}
	for (uint32_t G = 0; G < g; G++)
		for (uint32_t r = 0; r < a; r++) {
			struct ws_node_spec s = { WS_INIT_SIZE(struct ws_node_spec),
				.kind = WS_NODE_SWITCH, .level = 1, .addr_len = 2,
				.n_ports = (uint16_t)radix, .n_down = (uint16_t)p,
				.n_up = (uint16_t)(a - 1 + h), .index = r,
				.addr = { G, r },
			};
			if (ws_builder_add_node(b, &s, err) == WS_NONE)
				return WS_EPLUGIN;
		}

	for (uint32_t G = 0; G < g; G++) {
		for (uint32_t r = 0; r < a; r++) {
			const uint32_t rid = ws_df_router_id(&d, G, r);
			for (uint32_t t = 0; t < p; t++)
				if ((rc = ws_builder_link(b, ws_df_host_id(&d, G, r, t), 0, rid, t,
							  c->host_rate, c->host_delay, err)))
					return rc;
			for (uint32_t j = r + 1; j < a; j++)
				if ((rc = ws_builder_link(b, rid, ws_df_local_port(&d, r, j),
							  ws_df_router_id(&d, G, j),
							  ws_df_local_port(&d, j, r),
							  c->local_rate, c->local_delay, err)))
					return rc;
		}
		/* each global link once, from the lower-numbered group */
		for (uint32_t k = 0; k < a * h; k++) {
			const uint32_t X = ws_df_target(&d, G, k % (g - 1));
			if (X < G)
				continue;
			const uint32_t kx = ws_df_peer_link(&d, G, k);
			if ((rc = ws_builder_link(b, ws_df_router_id(&d, G, k / h),
						  ws_df_global_port(&d, k),
						  ws_df_router_id(&d, X, kx / h),
						  ws_df_global_port(&d, kx), c->global_rate,
						  c->global_delay, err)))
				return rc;
		}
	}
	const uint32_t geom[] = {
		[WS_DF_GEOM_P] = p, [WS_DF_GEOM_A] = a, [WS_DF_GEOM_H] = h,
		[WS_DF_GEOM_G] = g, [WS_DF_GEOM_ARR] = d.arr,
	};
	ws_builder_set_shape(b, WS_SHAPE_DRAGONFLY, 3);
	ws_builder_set_geometry(b, geom, (uint32_t)(sizeof geom / sizeof geom[0]));
	return WS_OK;
}

static const struct ws_topo_ops df_topo_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = df_topo_build,
	.default_routing = "dragonfly",
};

static const struct ws_plugin df_topo_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "dragonfly",
	.version = "1.0.0",
	.summary = "dragonfly (Kim et al. 2008): g groups of a routers, p hosts and h global links per router",
	.params = df_topo_params,
	.conf_size = sizeof(struct df_topo_conf),
	.validate = df_topo_validate,
	.ops = &df_topo_ops,
};

WS_PLUGIN_EXPORT(df_topo_plugin)
