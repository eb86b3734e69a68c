/* SPDX-License-Identifier: MIT */
/*
 * Declared parameters.  Every configurable component (each plugin, and the
 * kernel's own [sim], [nic], [switch] and [output] sections) lists its ini
 * keys in a table of `struct ws_param`.  The kernel parses values, applies
 * units and bounds, fills the component's config struct, rejects unknown
 * keys (naming the nearest valid one), and `warpsim describe` prints the
 * table.  Nobody parses a key by hand.
 *
 * Units accepted:
 *   rate  bps Kbps Mbps Gbps Tbps (also Gb/s ...), case-insensitive
 *   time  ps ns us ms s
 *   size  B KB MB GB TB (powers of 1000), KiB MiB GiB TiB (powers of 1024);
 *         a bare number is bytes
 * Numbers may have a fraction or an exponent ("0.001ms", "1.5e3us"); the
 * result is rounded to the nearest base unit (bps, ps, byte).
 */
#ifndef WARPSIM_PARAM_H
#define WARPSIM_PARAM_H

#include <stddef.h>
#include <stdint.h>

#include <warpsim/core.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ws_ptype {
	WS_PT_INT = 1, /* int64_t */
	WS_PT_UINT,    /* uint64_t */
	WS_PT_FLOAT,   /* double */
	WS_PT_RATE,    /* uint64_t, bits per second */
	WS_PT_TIME,    /* ws_time, picoseconds */
	WS_PT_SIZE,    /* uint64_t, bytes */
	WS_PT_BOOL,    /* bool */
	WS_PT_STRING,  /* const char *, owned by the kernel for the run */
	WS_PT_ENUM,    /* int: index into `choices` */
};

struct ws_param {
	const char *key;
	uint32_t type;            /* enum ws_ptype */
	uint32_t offset;          /* of the field in the config struct */
	const char *def;          /* default, in ini syntax; NULL: required */
	const char *min;          /* bound in ini syntax; NULL: none */
	const char *max;
	const char *const *choices; /* WS_PT_ENUM: NULL-terminated names */
	const char *doc;          /* one line, shown by `warpsim describe` */
};

/* Compile-time check that a field has the C type its parameter type needs. */
#define WS_PARAM_FIELD_(T, f, ctype)                                         \
	((uint32_t)(offsetof(T, f) +                                         \
		    0 * sizeof(char[(sizeof(((T *)0)->f) == sizeof(ctype)) ? 1 : -1])))

#define WS_PARAM_(k, ty, T, f, ctype, d, lo, hi, ch, doc_)                   \
	{ .key = (k), .type = (ty), .offset = WS_PARAM_FIELD_(T, f, ctype),  \
	  .def = (d), .min = (lo), .max = (hi), .choices = (ch), .doc = (doc_) }

#define WS_PARAM_INT(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_INT, T, f, int64_t, d, lo, hi, NULL, doc)
#define WS_PARAM_UINT(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_UINT, T, f, uint64_t, d, lo, hi, NULL, doc)
#define WS_PARAM_FLOAT(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_FLOAT, T, f, double, d, lo, hi, NULL, doc)
#define WS_PARAM_RATE(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_RATE, T, f, uint64_t, d, lo, hi, NULL, doc)
#define WS_PARAM_TIME(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_TIME, T, f, ws_time, d, lo, hi, NULL, doc)
#define WS_PARAM_SIZE(k, T, f, d, lo, hi, doc) \
	WS_PARAM_(k, WS_PT_SIZE, T, f, uint64_t, d, lo, hi, NULL, doc)
#define WS_PARAM_BOOL(k, T, f, d, doc) \
	WS_PARAM_(k, WS_PT_BOOL, T, f, bool, d, NULL, NULL, NULL, doc)
#define WS_PARAM_STRING(k, T, f, d, doc) \
	WS_PARAM_(k, WS_PT_STRING, T, f, const char *, d, NULL, NULL, NULL, doc)
#define WS_PARAM_ENUM(k, T, f, d, ch, doc) \
	WS_PARAM_(k, WS_PT_ENUM, T, f, int, d, NULL, NULL, ch, doc)
#define WS_PARAM_END { .key = NULL }

/* Name of a parameter type ("rate", "time", ...). */
WS_API const char *ws_ptype_name(uint32_t type);

/*
 * Parse `text` for parameter `p` into `dst` (the field itself, not the
 * struct).  Strings are not copied: *(const char **)dst = text.  On error,
 * returns WS_EINVAL with a sentence in `why` saying what was expected.
 */
WS_API int ws_param_parse(const struct ws_param *p, const char *text, void *dst,
			  char *why, size_t why_size);

/* Canonical text of a value ("100Gbps", "1us", "32MiB", "0.2"). */
WS_API size_t ws_param_format(const struct ws_param *p, const void *src, char *buf,
			      size_t size);

/* The key of `params` nearest to `key` (edit distance), or NULL. */
WS_API const char *ws_param_nearest(const struct ws_param *params, const char *key);

/* Fill `conf` with the defaults of `params` (all keys must have one). */
WS_API int ws_param_defaults(const struct ws_param *params, void *conf,
			     struct ws_err *err);

#ifdef __cplusplus
}
#endif
#endif
