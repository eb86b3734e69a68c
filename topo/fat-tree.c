/* SPDX-License-Identifier: MIT */
/*
 * fat-tree: the k-ary fat-tree of Al-Fares, Loukissas and Vahdat ("A
 * Scalable, Commodity Data Center Network Architecture", SIGCOMM 2008).
 *
 * k pods; each pod has k/2 edge and k/2 aggregation switches; each edge
 * switch serves k/2 hosts; (k/2)^2 core switches.  k^3/4 hosts in all.
 *
 * Node ids: hosts first (pod-major: id = pod*(k/2)^2 + edge*(k/2) + host,
 * as in the HPCC simulator's fat-tree files), then edge, aggregation and
 * core switches.  Addresses: a host is (pod, edge, host); an edge switch
 * covers (pod, edge); an aggregation switch covers (pod); a core covers all.
 * Ports: edge 0..k/2-1 down to hosts, k/2.. up to aggregation switch i of
 * its pod; aggregation 0..k/2-1 down to edges, k/2+j up to core
 * agg*(k/2) + j; core port p down to pod p.  Up/down routing needs no table.
 */
#include <stdio.h>

#include <warpsim/warpsim.h>

struct ft_conf {
	uint64_t k;
	uint64_t link_rate;
	ws_time link_delay;
	uint64_t host_rate;
};

static const struct ws_param ft_params[] = {
	WS_PARAM_UINT("k", struct ft_conf, k, "4", "2", "254",
		      "switch radix; even; k pods, k^3/4 hosts"),
	WS_PARAM_RATE("link_rate", struct ft_conf, link_rate, "100Gbps", "1Mbps", "100Tbps",
		      "rate of every switch-to-switch link"),
	WS_PARAM_TIME("link_delay", struct ft_conf, link_delay, "1us", "0s", "1s",
		      "propagation delay of every link, host links included"),
	WS_PARAM_RATE("host_rate", struct ft_conf, host_rate, "0bps", "0bps", "100Tbps",
		      "rate of host-to-edge links; 0bps: the same as link_rate"),
	WS_PARAM_END
};

static int ft_validate(const void *conf, struct ws_err *err)
{
	const struct ft_conf *c = conf;
	if (c->k % 2) {
		ws_err_set(err, WS_EINVAL, "k = %llu: a fat-tree needs an even k",
			   (unsigned long long)c->k);
		snprintf(err->key, sizeof err->key, "k");
		return WS_EINVAL;
	}
	return WS_OK;
}

static int ft_build(struct ws_inst *inst, struct ws_builder *b,
		    struct ws_err *err)
{
	const struct ft_conf *c = inst->conf;
	const uint32_t k = (uint32_t)c->k, h = k / 2;
	const uint32_t hosts = k * h * h, edges = k * h, aggs = k * h, cores = h * h;
	const uint64_t host_rate = c->host_rate ? c->host_rate : c->link_rate;
	int rc = ws_builder_reserve(b, hosts + edges + aggs + cores,
				    hosts + (edges + aggs + cores) * k, err);
	if (rc)
		return rc;
	const uint32_t edge0 = hosts, agg0 = hosts + edges, core0 = agg0 + aggs;

	for (uint32_t p = 0; p < k; p++)
		for (uint32_t e = 0; e < h; e++)
			for (uint32_t i = 0; i < h; i++) {
				struct ws_node_spec s = {
					.kind = WS_NODE_HOST, .addr_len = 3, .n_ports = 1,
					.n_up = 1, .index = i, .addr = { p, e, i },
				};
				if (ws_builder_add_node(b, &s, err) == WS_NONE)
					return WS_EPLUGIN;
			}
	for (uint32_t p = 0; p < k; p++)
		for (uint32_t e = 0; e < h; e++) {
			struct ws_node_spec s = {
				.kind = WS_NODE_SWITCH, .level = 1, .addr_len = 2,
				.n_ports = (uint16_t)k, .n_down = (uint16_t)h,
				.n_up = (uint16_t)h, .index = e, .addr = { p, e },
			};
			if (ws_builder_add_node(b, &s, err) == WS_NONE)
				return WS_EPLUGIN;
		}
	for (uint32_t p = 0; p < k; p++)
		for (uint32_t a = 0; a < h; a++) {
			struct ws_node_spec s = {
				.kind = WS_NODE_SWITCH, .level = 2, .addr_len = 1,
				.n_ports = (uint16_t)k, .n_down = (uint16_t)h,
				.n_up = (uint16_t)h, .index = a, .addr = { p },
			};
			if (ws_builder_add_node(b, &s, err) == WS_NONE)
				return WS_EPLUGIN;
		}
	for (uint32_t i = 0; i < cores; i++) {
		struct ws_node_spec s = {
			.kind = WS_NODE_SWITCH, .level = 3, .addr_len = 0,
			.n_ports = (uint16_t)k, .n_down = (uint16_t)k, .n_up = 0,
			.index = i,
		};
		if (ws_builder_add_node(b, &s, err) == WS_NONE)
			return WS_EPLUGIN;
	}

	for (uint32_t p = 0; p < k; p++) {
		for (uint32_t e = 0; e < h; e++) {
			uint32_t edge = edge0 + p * h + e;
			for (uint32_t i = 0; i < h; i++) {
				uint32_t host = p * h * h + e * h + i;
				if ((rc = ws_builder_link(b, host, 0, edge, i, host_rate,
							  c->link_delay, err)))
					return rc;
			}
			for (uint32_t a = 0; a < h; a++)
				if ((rc = ws_builder_link(b, edge, h + a, agg0 + p * h + a, e,
							  c->link_rate, c->link_delay, err)))
					return rc;
		}
		for (uint32_t a = 0; a < h; a++)
			for (uint32_t j = 0; j < h; j++)
				if ((rc = ws_builder_link(b, agg0 + p * h + a, h + j,
							  core0 + a * h + j, p, c->link_rate,
							  c->link_delay, err)))
					return rc;
	}
	ws_builder_set_shape(b, WS_SHAPE_UPDOWN, 3);
	return WS_OK;
}

static const struct ws_topo_ops ft_ops = {
	.size = sizeof(struct ws_topo_ops),
	.build = ft_build,
	.default_routing = "updown",
};

static const struct ws_plugin ft_plugin = {
	WS_PLUGIN_ABI(WS_KIND_TOPO, struct ws_topo_ops),
	.name = "fat-tree",
	.version = "1.0.0",
	.summary = "k-ary fat-tree (Al-Fares et al. 2008): k^3/4 hosts, pod/edge/host addresses",
	.params = ft_params,
	.conf_size = sizeof(struct ft_conf),
	.validate = ft_validate,
	.ops = &ft_ops,
};

WS_PLUGIN_EXPORT(ft_plugin)
