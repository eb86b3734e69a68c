/* SPDX-License-Identifier: MIT */
/*
 * INT as switches encode it.  Switches stamp exact values (time in ps, the
 * port's 64-bit tx byte counter, its queue bytes); a CC compares two
 * records of a hop through ws_int_delta(), which reads them in the
 * configured format.  The default is the encoding of the HPCC ns-3
 * simulator's INT header (alibaba-edu/High-Precision-Congestion-Control,
 * int-header.h): per hop a 24-bit timestamp in ns, a 20-bit tx byte counter
 * in units of 128 B and a 17-bit queue length in units of 80 B, both units
 * multiplied by INT_MULTI, which its run script sets to the NIC rate /
 * 25 Gb/s (4 at 100 Gb/s: 512-byte and 320-byte steps); warpsim's automatic
 * value is capped so that a tx step is never longer than a data packet.  Each field keeps
 * the low bits of the value divided by its unit, so the counters wrap, and
 * the reader takes differences modulo 2^bits.  Reading the exact values
 * instead of encoding them at the switch gives the same numbers (the
 * encoding is a function of the exact value) and keeps the records
 * shiftable by accelerators.
 */
#include "internal.h"

static uint64_t low_bits(uint64_t v, unsigned bits)
{
	return bits >= 64 ? v : v & ((UINT64_C(1) << bits) - 1);
}

void ws_int_format_setup(struct ws_sim *sim)
{
	const struct ws_nic_conf *n = &sim->nicc;
	struct ws_int_format *f = &sim->int_fmt;
	*f = (struct ws_int_format){ .size = sizeof *f };
	if (n->int_encoding != WS_INT_ENC_REFERENCE)
		return;
	uint64_t multi = n->int_multi;
	if (multi == 0) {
		uint64_t fastest = sim->facts.fastest_host_rate;
		multi = WS_MAX(fastest / 25000000000ull, 1);
		/* but never a tx step longer than a data packet: the reference's
		 * rule at 100 Gb/s (4: 512-byte steps), capped above it (at
		 * 400 Gb/s its 16 would make HPCC settle near half the line
		 * rate; int_multi = 16 reproduces that) */
		uint64_t wire = n->mtu + sim->int_bytes;
		uint64_t cap = WS_MAX(wire / WS_MAX(n->int_bytes_unit, 1), 1);
		multi = WS_MIN(multi, cap);
	}
	f->encoded = true;
	f->time_bits = (uint8_t)n->int_time_bits;
	f->bytes_bits = (uint8_t)n->int_bytes_bits;
	f->qlen_bits = (uint8_t)n->int_qlen_bits;
	f->time_unit = n->int_time_unit;
	f->bytes_unit = n->int_bytes_unit * multi;
	f->qlen_unit = n->int_qlen_unit * multi;
	uint64_t data_wire = n->mtu + sim->int_bytes;
	if ((sim->cc_needs & WS_CC_NEEDS_INT) && f->bytes_unit > data_wire)
		ws_warn(sim, "[nic] INT tx counter steps of %llu B (int_bytes_unit x "
			"int_multi %llu) exceed a data packet (%llu B): two records of a hop "
			"can read no bytes sent between them, which biases what a CC measures "
			"from INT (one driven by INT may settle well below the line rate, as "
			"in the reference); int_multi = %llu or int_encoding = exact avoids it",
			(unsigned long long)f->bytes_unit, (unsigned long long)multi,
			(unsigned long long)data_wire,
			(unsigned long long)WS_MAX(data_wire / n->int_bytes_unit, 1));
}

const struct ws_int_format *ws_sim_int_format(const struct ws_sim *sim)
{
	return &sim->int_fmt;
}

static int exact_delta(const struct ws_int_hop *cur, const struct ws_int_hop *prev,
		       struct ws_int_delta *out)
{
	if (cur->ts <= prev->ts)
		return WS_INT_STALE;
	if (cur->tx_bytes < prev->tx_bytes || cur->rate == 0)
		return WS_INT_RESET;
	out->dt = cur->ts - prev->ts;
	out->tx_bytes = cur->tx_bytes - prev->tx_bytes;
	out->qlen = cur->qlen;
	out->qlen_prev = prev->qlen;
	return WS_INT_OK;
}

int ws_int_delta(const struct ws_int_format *fmt, const struct ws_int_hop *cur,
		 const struct ws_int_hop *prev, struct ws_int_delta *out)
{
	struct ws_int_delta d = { .size = sizeof d };
	int st;
	if (!fmt->encoded) {
		st = exact_delta(cur, prev, &d);
	} else if (cur->rate == 0) {
		st = WS_INT_RESET;
	} else {
		unsigned tb = fmt->time_bits, bb = fmt->bytes_bits, qb = fmt->qlen_bits;
		/* a plugin's own format may leave a unit at 0: read it as 1 */
		uint64_t tu = WS_MAX(fmt->time_unit, 1), bu = WS_MAX(fmt->bytes_unit, 1),
			 qu = WS_MAX(fmt->qlen_unit, 1);
		uint64_t ticks = low_bits(cur->ts / tu - prev->ts / tu, tb);
		d.dt = ticks * tu;
		d.tx_bytes = low_bits(cur->tx_bytes / bu - prev->tx_bytes / bu, bb) * bu;
		d.qlen = low_bits(cur->qlen / qu, qb) * qu;
		d.qlen_prev = low_bits(prev->qlen / qu, qb) * qu;
		st = ticks ? WS_INT_OK : WS_INT_STALE;
	}
	if (st == WS_INT_OK)
		ws_sized_out(out, &d, sizeof d, "ws_int_delta");
	return st;
}
