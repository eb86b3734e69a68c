/* SPDX-License-Identifier: MIT */
/*
 * Parameter values: parsing with units and bounds, canonical formatting,
 * defaults, and the nearest valid key for error messages.
 *
 * Quantities with units are parsed exactly: "0.001ms" is read as the
 * decimal 1e-3 times 10^9 ps, not through a binary float, so a value written
 * in any unit gives the same integer.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

__extension__ typedef unsigned __int128 u128;

const char *ws_ptype_name(uint32_t type)
{
	switch (type) {
	case WS_PT_INT: return "int";
	case WS_PT_UINT: return "uint";
	case WS_PT_FLOAT: return "float";
	case WS_PT_RATE: return "rate";
	case WS_PT_TIME: return "time";
	case WS_PT_SIZE: return "size";
	case WS_PT_BOOL: return "bool";
	case WS_PT_STRING: return "string";
	case WS_PT_ENUM: return "enum";
	}
	return "?";
}

struct unit {
	const char *name;
	uint64_t factor; /* in base units */
};

/* Rates are bits per second: the prefix's case does not matter, but the
 * b must be lower-case (GB/s would be gigabytes). */
static const struct unit rate_units[] = {
	{ "bps", 1 }, { "Kbps", 1000 }, { "Mbps", 1000000 },
	{ "Gbps", 1000000000ull }, { "Tbps", 1000000000000ull },
	{ "b/s", 1 }, { "Kb/s", 1000 }, { "Mb/s", 1000000 },
	{ "Gb/s", 1000000000ull }, { "Tb/s", 1000000000000ull },
	{ NULL, 0 }
};

static bool rate_unit_eq(const char *unit, const char *s, size_t len)
{
	if (strlen(unit) != len)
		return false;
	for (size_t i = 0; i < len; i++) {
		if (unit[i] == 'b' ? s[i] != 'b'
				   : tolower((unsigned char)unit[i]) !=
					     tolower((unsigned char)s[i]))
			return false;
	}
	return true;
}

static const struct unit time_units[] = {
	{ "ps", 1 }, { "ns", 1000 }, { "us", 1000000 },
	{ "ms", 1000000000ull }, { "s", 1000000000000ull },
	{ NULL, 0 }
};

static const struct unit size_units[] = {
	{ "B", 1 }, { "KB", 1000 }, { "kB", 1000 }, { "MB", 1000000 },
	{ "GB", 1000000000ull }, { "TB", 1000000000000ull },
	{ "KiB", 1024 }, { "MiB", 1048576 }, { "GiB", 1073741824ull },
	{ "TiB", 1099511627776ull },
	{ NULL, 0 }
};

static void trim(const char *s, const char **b, size_t *len)
{
	while (*s && isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	*b = s;
	*len = n;
}

/*
 * Parse a non-negative decimal "123", "1.5", ".5", "2e3", "1.5E-3" into
 * mantissa digits and a power of ten.  Returns the number of characters
 * consumed, 0 if there is no number.
 */
static size_t parse_decimal(const char *s, size_t len, u128 *mant, int *exp10,
			    bool *overflow)
{
	size_t i = 0;
	u128 m = 0;
	int e = 0;
	bool digits = false;
	*overflow = false;
	while (i < len && isdigit((unsigned char)s[i])) {
		if (m > ((u128)1 << 120))
			e++; /* drop digits that no longer matter */
		else
			m = m * 10 + (unsigned)(s[i] - '0');
		digits = true;
		i++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && isdigit((unsigned char)s[i])) {
			if (m <= ((u128)1 << 120)) {
				m = m * 10 + (unsigned)(s[i] - '0');
				e--;
			}
			digits = true;
			i++;
		}
	}
	if (!digits)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1;
		int sign = 1, x = 0;
		if (j < len && (s[j] == '+' || s[j] == '-')) {
			sign = s[j] == '-' ? -1 : 1;
			j++;
		}
		if (j < len && isdigit((unsigned char)s[j])) {
			while (j < len && isdigit((unsigned char)s[j])) {
				if (x < 10000)
					x = x * 10 + (s[j] - '0');
				j++;
			}
			e += sign * x;
			i = j;
		}
	}
	if (e > 60)
		*overflow = m != 0;
	*mant = m;
	*exp10 = e;
	return i;
}

/* mant * 10^e * factor, rounded to the nearest integer; false on overflow. */
static bool scale(u128 mant, int e, uint64_t factor, uint64_t *out)
{
	u128 v = mant;
	if (v != 0 && factor > ((u128)-1) / v)
		return false;
	v *= factor;
	while (e > 0) {
		if (v > ((u128)-1) / 10)
			return v == 0 ? (*out = 0, true) : false;
		v *= 10;
		e--;
	}
	while (e < 0) {
		/* round half up at the last division */
		if (e == -1) {
			v = (v + 5) / 10;
		} else {
			v /= 10;
			if (v == 0) {
				*out = 0;
				return true;
			}
		}
		e++;
	}
	if (v > UINT64_MAX)
		return false;
	*out = (uint64_t)v;
	return true;
}

static const struct unit *find_unit(const struct unit *u, const char *s,
				    size_t len, bool rate)
{
	for (; u->name; u++) {
		if (rate ? rate_unit_eq(u->name, s, len)
			 : strlen(u->name) == len && strncmp(u->name, s, len) == 0)
			return u;
	}
	return NULL;
}

static void unit_list(const struct unit *u, char *buf, size_t size,
		      size_t max_names)
{
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; u[i].name && i < max_names; i++) {
		int w = snprintf(buf + n, size > n ? size - n : 0, "%s%s",
				 i ? ", " : "", u[i].name);
		if (w > 0)
			n += (size_t)w;
	}
}

static int parse_quantity(uint32_t type, const char *s, size_t len,
			  uint64_t *out, char *why, size_t wn)
{
	const struct unit *units;
	const char *what;
	size_t show;
	bool is_rate;
	switch (type) {
	case WS_PT_RATE: units = rate_units; what = "rate"; show = 5; is_rate = true; break;
	case WS_PT_TIME: units = time_units; what = "time"; show = 5; is_rate = false; break;
	default: units = size_units; what = "size"; show = 10; is_rate = false; break;
	}
	char names[160];
	unit_list(units, names, sizeof names, show);
	if (len > 0 && s[0] == '-') {
		snprintf(why, wn, "a %s cannot be negative", what);
		return WS_EINVAL;
	}
	u128 mant;
	int e;
	bool ovf;
	size_t used = parse_decimal(s, len, &mant, &e, &ovf);
	if (used == 0) {
		snprintf(why, wn, "expected a %s: a number and a unit (%s)", what,
			 names);
		return WS_EINVAL;
	}
	size_t j = used;
	while (j < len && s[j] == ' ')
		j++;
	const struct unit *u;
	if (j == len) {
		if (type != WS_PT_SIZE) {
			snprintf(why, wn, "missing unit: expected a %s such as %s",
				 what, type == WS_PT_RATE ? "100Gbps" : "1us");
			return WS_EINVAL;
		}
		u = &size_units[0];
	} else {
		u = find_unit(units, s + j, len - j, is_rate);
		if (!u) {
			bool bytes = type == WS_PT_RATE && memchr(s + j, 'B', len - j);
			snprintf(why, wn, "unknown %s unit '%.*s' (expected %s%s)", what,
				 (int)(len - j), s + j, names,
				 bytes ? "; rates are in bits per second" : "");
			return WS_EINVAL;
		}
	}
	if (ovf || !scale(mant, e, u->factor, out)) {
		snprintf(why, wn, "%s too large", what);
		return WS_EINVAL;
	}
	return WS_OK;
}

static int parse_int(const char *s, size_t len, bool is_unsigned, int64_t *si,
		     uint64_t *ui, char *why, size_t wn)
{
	char buf[64];
	if (len == 0 || len >= sizeof buf) {
		snprintf(why, wn, "expected an integer");
		return WS_EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	if (is_unsigned) {
		if (buf[0] == '-' || !isdigit((unsigned char)buf[0])) {
			snprintf(why, wn, "expected a non-negative integer");
			return WS_EINVAL;
		}
		*ui = strtoull(buf, &end, 10);
	} else {
		if (!(isdigit((unsigned char)buf[0]) ||
		      ((buf[0] == '-' || buf[0] == '+') &&
		       isdigit((unsigned char)buf[1])))) {
			snprintf(why, wn, "expected an integer");
			return WS_EINVAL;
		}
		*si = strtoll(buf, &end, 10);
	}
	if (errno == ERANGE) {
		snprintf(why, wn, "integer out of range");
		return WS_EINVAL;
	}
	if (*end) {
		snprintf(why, wn, "expected an integer, found '%s'", buf);
		return WS_EINVAL;
	}
	return WS_OK;
}

static int parse_float(const char *s, size_t len, double *out, char *why,
		       size_t wn)
{
	char buf[128];
	if (len == 0 || len >= sizeof buf) {
		snprintf(why, wn, "expected a number");
		return WS_EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (end == buf || *end || !isfinite(v) || (errno == ERANGE && fabs(v) > 1)) {
		snprintf(why, wn, "expected a finite number, found '%s'", buf);
		return WS_EINVAL;
	}
	if (errno == ERANGE || (v != 0 && fabs(v) < DBL_MIN)) {
		snprintf(why, wn, "'%s' is too small to hold (a subnormal number: "
			 "below %g, use 0 or a larger value)", buf, DBL_MIN);
		return WS_EINVAL;
	}
	*out = v;
	return WS_OK;
}

static int parse_bool(const char *s, size_t len, bool *out, char *why,
		      size_t wn)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };
	for (size_t i = 0; yes[i]; i++) {
		if (strlen(yes[i]) == len && strncasecmp(s, yes[i], len) == 0) {
			*out = true;
			return WS_OK;
		}
		if (strlen(no[i]) == len && strncasecmp(s, no[i], len) == 0) {
			*out = false;
			return WS_OK;
		}
	}
	snprintf(why, wn, "expected true or false (also yes/no, on/off, 1/0)");
	return WS_EINVAL;
}

static int parse_enum(const struct ws_param *p, const char *s, size_t len,
		      int *out, char *why, size_t wn)
{
	for (int i = 0; p->choices && p->choices[i]; i++) {
		if (strlen(p->choices[i]) == len &&
		    strncmp(p->choices[i], s, len) == 0) {
			*out = i;
			return WS_OK;
		}
	}
	size_t n = (size_t)snprintf(why, wn, "expected one of: ");
	for (int i = 0; p->choices && p->choices[i] && n < wn; i++)
		n += (size_t)snprintf(why + n, wn - n, "%s%s", i ? ", " : "",
				      p->choices[i]);
	return WS_EINVAL;
}

/* Parse without the bounds check. */
static int parse_raw(const struct ws_param *p, const char *text, void *dst,
		     char *why, size_t wn)
{
	const char *s;
	size_t len;
	trim(text, &s, &len);
	switch (p->type) {
	case WS_PT_INT:
		return parse_int(s, len, false, dst, NULL, why, wn);
	case WS_PT_UINT:
		return parse_int(s, len, true, NULL, dst, why, wn);
	case WS_PT_FLOAT:
		return parse_float(s, len, dst, why, wn);
	case WS_PT_RATE:
	case WS_PT_TIME:
	case WS_PT_SIZE:
		return parse_quantity(p->type, s, len, dst, why, wn);
	case WS_PT_BOOL:
		return parse_bool(s, len, dst, why, wn);
	case WS_PT_ENUM:
		return parse_enum(p, s, len, dst, why, wn);
	case WS_PT_STRING:
		*(const char **)dst = text;
		return WS_OK;
	}
	snprintf(why, wn, "parameter '%s' has an unknown type %u", p->key,
		 p->type);
	return WS_EINVAL;
}

union anyval {
	int64_t i;
	uint64_t u;
	double f;
	bool b;
	int e;
	const char *s;
};

static int cmp_vals(uint32_t type, const union anyval *a, const union anyval *b)
{
	switch (type) {
	case WS_PT_INT:
		return a->i < b->i ? -1 : a->i > b->i;
	case WS_PT_FLOAT:
		return a->f < b->f ? -1 : a->f > b->f;
	default:
		return a->u < b->u ? -1 : a->u > b->u;
	}
}

int ws_param_parse(const struct ws_param *p, const char *text, void *dst,
		   char *why, size_t why_size)
{
	union anyval v, bound;
	memset(&v, 0, sizeof v);
	int rc = parse_raw(p, text, &v, why, why_size);
	if (rc)
		return rc;
	if (p->type == WS_PT_STRING) {
		*(const char **)dst = text;
		return WS_OK;
	}
	char tmp[128];
	int below = 0, above = 0;
	if (p->min) {
		memset(&bound, 0, sizeof bound);
		if (parse_raw(p, p->min, &bound, tmp, sizeof tmp) == WS_OK &&
		    cmp_vals(p->type, &v, &bound) < 0)
			below = 1;
	}
	if (p->max) {
		memset(&bound, 0, sizeof bound);
		if (parse_raw(p, p->max, &bound, tmp, sizeof tmp) == WS_OK &&
		    cmp_vals(p->type, &v, &bound) > 0)
			above = 1;
	}
	if (below || above) {
		const char *s;
		size_t len;
		trim(text, &s, &len);
		if (p->min && p->max)
			snprintf(why, why_size,
				 "%.*s is out of range (expected %s to %s)",
				 (int)len, s, p->min, p->max);
		else if (below)
			snprintf(why, why_size, "%.*s is below the minimum %s",
				 (int)len, s, p->min);
		else
			snprintf(why, why_size, "%.*s is above the maximum %s",
				 (int)len, s, p->max);
		return WS_EINVAL;
	}
	switch (p->type) {
	case WS_PT_INT: *(int64_t *)dst = v.i; break;
	case WS_PT_UINT:
	case WS_PT_RATE:
	case WS_PT_TIME:
	case WS_PT_SIZE: *(uint64_t *)dst = v.u; break;
	case WS_PT_FLOAT: *(double *)dst = v.f; break;
	case WS_PT_BOOL: *(bool *)dst = v.b; break;
	case WS_PT_ENUM: *(int *)dst = v.e; break;
	}
	return WS_OK;
}

/* Largest unit that divides v exactly. */
static size_t fmt_units(const struct unit *u, size_t n_units, uint64_t v,
			char *buf, size_t size)
{
	const struct unit *best = &u[0];
	for (size_t i = 0; i < n_units; i++)
		if (v != 0 && u[i].factor > best->factor && v % u[i].factor == 0)
			best = &u[i];
	int w = snprintf(buf, size, "%" PRIu64 "%s", v / best->factor, best->name);
	return w < 0 ? 0 : (size_t)w;
}

size_t ws_param_format(const struct ws_param *p, const void *src, char *buf,
		       size_t size)
{
	int w = 0;
	switch (p->type) {
	case WS_PT_INT:
		w = snprintf(buf, size, "%" PRId64, *(const int64_t *)src);
		break;
	case WS_PT_UINT:
		w = snprintf(buf, size, "%" PRIu64, *(const uint64_t *)src);
		break;
	case WS_PT_FLOAT:
		w = snprintf(buf, size, "%.10g", *(const double *)src);
		break;
	case WS_PT_RATE:
		return fmt_units(rate_units, 5, *(const uint64_t *)src, buf, size);
	case WS_PT_TIME:
		return fmt_units(time_units, 5, *(const uint64_t *)src, buf, size);
	case WS_PT_SIZE: {
		/* whichever unit, decimal or binary, divides it into the
		 * smallest whole number */
		static const struct unit any[] = { { "B", 1 }, { "KB", 1000 },
			{ "KiB", 1024 }, { "MB", 1000000 }, { "MiB", 1048576 },
			{ "GB", 1000000000ull }, { "GiB", 1073741824ull },
			{ "TB", 1000000000000ull }, { "TiB", 1099511627776ull } };
		return fmt_units(any, WS_ARRAY_LEN(any), *(const uint64_t *)src, buf,
				 size);
	}
	case WS_PT_BOOL:
		w = snprintf(buf, size, "%s", *(const bool *)src ? "true" : "false");
		break;
	case WS_PT_ENUM: {
		int i = *(const int *)src;
		w = snprintf(buf, size, "%s", p->choices ? p->choices[i] : "?");
		break;
	}
	case WS_PT_STRING: {
		const char *s = *(const char *const *)src;
		w = snprintf(buf, size, "%s", s ? s : "");
		break;
	}
	}
	return w < 0 ? 0 : (size_t)w;
}

static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	size_t row[65];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t prev = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t cur = row[j];
			size_t cost = tolower((unsigned char)a[i - 1]) ==
						      tolower((unsigned char)b[j - 1])
					      ? 0
					      : 1;
			size_t best = prev + cost;
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = cur;
		}
	}
	return row[lb];
}

const char *ws_param_nearest(const struct ws_param *params, const char *key)
{
	const char *best = NULL;
	size_t best_d = (size_t)-1;
	for (const struct ws_param *p = params; p && p->key; p++) {
		size_t d = edit_distance(key, p->key);
		/* a prefix or a substring counts as near too */
		if (strlen(p->key) >= 3 && strlen(key) >= 3 &&
		    (strstr(p->key, key) || strstr(key, p->key)))
			d = d < 2 ? d : 2;
		if (d < best_d) {
			best_d = d;
			best = p->key;
		}
	}
	size_t limit = strlen(key) / 3 + 2;
	return best_d <= limit ? best : NULL;
}

int ws_param_defaults(const struct ws_param *params, void *conf,
		      struct ws_err *err)
{
	for (const struct ws_param *p = params; p && p->key; p++) {
		if (!p->def)
			continue;
		char why[256];
		if (ws_param_parse(p, p->def, (char *)conf + p->offset, why,
				   sizeof why))
			return ws_err_set(err, WS_EPLUGIN,
					  "default of '%s' (%s) is invalid: %s",
					  p->key, p->def, why);
	}
	return WS_OK;
}
